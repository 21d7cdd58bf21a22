// The web chat's entry point: connect to parley (a WebSocket to /acp in a browser, the
// extension's message channel in a VS Code webview), then show the conversations.
import { Parley } from "./client";
import { Peer, type Transport } from "./rpc";
import { vscodeTransport, webSocketTransport } from "./transports";
import type { Actions } from "./ui/card";
import { App } from "./ui/app";
import { Viewer } from "./ui/viewer";
import { visible } from "./visible";

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };

async function main() {
  const root = document.getElementById("app")!;
  const inVSCode = typeof acquireVsCodeApi === "function";
  const vscode = inVSCode ? acquireVsCodeApi() : null;
  let transport: Transport;
  try {
    transport = vscode ? vscodeTransport(vscode) : await webSocketTransport(new URL("acp", location.href).href.replace(/^http/, "ws"));
  } catch (e) {
    root.textContent = visible(String((e as Error).message ?? e));
    return;
  }
  const parley = new Parley(new Peer(transport));
  let app: App | undefined;
  // Outside VS Code, files and diffs open in the page (the viewer reads files through parley).
  const viewer = new Viewer(parley, () => app?.currentSession());
  const actions: Actions = vscode
    ? {
        openFile: (path, line) => vscode.postMessage({ type: "open", path, line }),
        openDiff: (path, oldText, newText) => vscode.postMessage({ type: "diff", path, oldText, newText }),
      }
    : { ...viewer.actions(), newAddress };
  try {
    await parley.start();
  } catch (e) {
    root.textContent = visible(`parley did not answer: ${(e as Error).message ?? e}`);
    return;
  }
  document.body.classList.toggle("in-vscode", inVSCode);
  app = new App(parley, actions);
  root.replaceChildren(app.el);
  await app.start();
  performance.mark("parley-ready");
}

// newAddress asks parley web for a new token. This page gets a session under it (the
// answer's cookie) and reloads, since parley closes every connection the old one let in.
async function newAddress() {
  const r = await fetch("rotate", { method: "POST", credentials: "same-origin" });
  if (!r.ok) throw new Error(`parley did not replace the token: ${(await r.text()).trim() || r.status}`);
  location.reload();
}

main();
