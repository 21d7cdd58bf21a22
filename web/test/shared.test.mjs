// One live conversation in every view (docs/sharing.md): a conversation started from
// `parley acp --connect` (an editor's ACP client on another machine) is attached by a
// second --connect client and by a browser tab; all three see the reply as it streams,
// a permission question shows in all three, and one answer from the page closes it in
// the two clients ($/cancel_request).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeBrowser, newPage, parleyBinary, shot, startWeb } from "./harness.mjs";

test.after(closeBrowser);

// connectClient is `parley acp --connect URL` driven as an ACP client over its stdio: it
// sends requests, records what the server sends, and leaves permission requests open.
function connectClient(url) {
  const proc = spawn(parleyBinary(), ["acp", "--connect", url], { stdio: ["pipe", "pipe", "pipe"] });
  let next = 1, buf = "", stderr = "";
  const pending = new Map();
  const seen = []; // every message from the server
  const watchers = [];
  proc.stderr.on("data", (d) => (stderr += d));
  proc.stdout.on("data", (d) => {
    buf += d;
    for (let i; (i = buf.indexOf("\n")) >= 0; buf = buf.slice(i + 1)) {
      const msg = JSON.parse(buf.slice(0, i));
      if (msg.id !== undefined && !msg.method && pending.has(msg.id)) {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        msg.error ? p.rej(new Error(JSON.stringify(msg.error))) : p.res(msg.result);
        continue;
      }
      seen.push(msg);
      for (const w of watchers.splice(0)) w();
    }
  });
  const write = (m) => proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
  return {
    seen,
    stderr: () => stderr,
    request(method, params) {
      const id = next++;
      write({ id, method, params });
      return new Promise((res, rej) => pending.set(id, { res, rej }));
    },
    // until waits for a message from the server for which pred is true.
    async until(pred, what) {
      const deadline = Date.now() + 30000; // a hang guard
      for (;;) {
        const m = seen.find(pred);
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`no ${what} from the server; stderr: ${stderr}`);
        await new Promise((res) => { watchers.push(res); setTimeout(res, 1000); });
      }
    },
    text(session) {
      return seen.filter((m) => m.method === "session/update" && m.params.sessionId === session && m.params.update.sessionUpdate === "agent_message_chunk")
        .map((m) => m.params.update.content.text).join("");
    },
    close() {
      proc.stdin.end();
      return new Promise((res) => proc.on("exit", res));
    },
  };
}

const init = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } };

test("a conversation from parley acp --connect, attached by a second client and a page: one reply, one question, the first answer wins", async () => {
  const web = await startWeb();
  const a = connectClient(web.url), b = connectClient(web.url);
  try {
    await a.request("initialize", init);
    await b.request("initialize", init);
    // The client's cwd names a directory on its own machine: the session opens in the server's workspace.
    const { sessionId } = await a.request("session/new", { cwd: "/home/someone/elsewhere", mcpServers: [] });
    const list = await b.request("session/list", {});
    assert.ok(list.sessions.some((s) => s.sessionId === sessionId), "session/list shows the live conversation");
    await b.request("session/load", { sessionId, cwd: "/home/someone/else", mcpServers: [] });
    const page = await newPage();
    await page.goto(web.url);
    await page.locator(".tab").first().waitFor();
    assert.equal(await page.locator(".tab").count(), 1, "the page attached to the live conversation, no new one");

    const words = "alpha beta gamma delta epsilon zeta eta theta";
    const turn = a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "slowly " + words }] });
    await page.locator(".msg.agent", { hasText: "theta" }).waitFor();
    const end = await turn;
    assert.equal(end.stopReason, "end_turn");
    await b.until((m) => m.method === "session/update" && m.params.update.content?.text?.includes("theta"), "streamed reply");
    assert.match(a.text(sessionId).replace(/\s+/g, " "), /alpha beta gamma delta epsilon zeta eta theta/);
    assert.equal(b.text(sessionId).replace(/\s+/g, " "), a.text(sessionId).replace(/\s+/g, " "), "both clients saw the same reply");

    const asked = b.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "request permission deploy the site" }] });
    const qa = await a.until((m) => m.method === "session/request_permission", "permission question (first client)");
    const qb = await b.until((m) => m.method === "session/request_permission", "permission question (second client)");
    const card = page.locator(".card.tool.asking");
    await card.locator("button[data-option=allow_once]").waitFor();
    await shot(page, "shared-question");
    await card.locator("button[data-option=allow_once]").click();
    assert.equal((await asked).stopReason, "end_turn");
    for (const [c, q] of [[a, qa], [b, qb]]) {
      await c.until((m) => m.method === "$/cancel_request" && m.params.requestId === q.id, "withdrawal of the question");
    }
    await page.locator(".msg.agent", { hasText: "permission: allow_once" }).waitFor();
    assert.equal(await page.locator(".card.tool.asking").count(), 0, "the question is closed on the page");
    assert.deepEqual(page.errors, []);
  } finally {
    await a.close();
    await b.close();
    await web.stop();
  }
});
