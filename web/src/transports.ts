// The page's transports to parley: a WebSocket to `parley web`'s /acp, or the VS Code
// webview's message channel. The JSON-RPC client on them (rpc.ts) is the extension's too.

import type { Transport } from "./rpc";

// webSocketTransport connects to parley's /acp (the cookie parley set carries the token).
export function webSocketTransport(url: string): Promise<Transport> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ["acp"]);
    const messages: ((t: string) => void)[] = [];
    const closes: ((w: string) => void)[] = [];
    let open = false;
    ws.onopen = () => {
      open = true;
      resolve({
        send: (t) => ws.readyState === WebSocket.OPEN && ws.send(t),
        onMessage: (cb) => messages.push(cb),
        onClose: (cb) => closes.push(cb),
      });
    };
    ws.onmessage = (e) => {
      if (typeof e.data === "string") for (const cb of messages) cb(e.data);
    };
    ws.onclose = (e) => {
      if (!open) reject(new Error("parley refused the connection (open the address parley printed)"));
      for (const cb of closes) cb(e.reason || "parley closed the connection");
    };
  });
}

// The VS Code webview: the extension relays each message to and from the parley process
// it runs (parley acp), one JSON-RPC message per postMessage.
export function vscodeTransport(api: { postMessage(m: unknown): void }): Transport {
  const messages: ((t: string) => void)[] = [];
  const closes: ((w: string) => void)[] = [];
  window.addEventListener("message", (e: MessageEvent) => {
    const d = e.data;
    if (d && d.type === "acp" && typeof d.text === "string") for (const cb of messages) cb(d.text);
    if (d && d.type === "acp-closed") for (const cb of closes) cb(String(d.reason ?? "parley stopped"));
  });
  return {
    send: (t) => api.postMessage({ type: "acp", text: t }),
    onMessage: (cb) => messages.push(cb),
    onClose: (cb) => closes.push(cb),
  };
}
