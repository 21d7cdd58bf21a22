// Issue 29 in the page: fork, hand-off and rewind (and edit and resend), from the
// conversation menu and from a past message. The server side (_parley/fork, /handoff,
// /rewind) comes from acpserver's carry.go: "against a fake" stands in for it, in the
// WebSocket between the page and the real `parley web` (it answers those three methods
// with what parley has today: _parley/undo with rewind, and session/new); "against
// parley" drives the real methods.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { closeBrowser, newPage, scriptedAgent, send, shot, startWeb } from "./harness.mjs";

after(closeBrowser);

const view = "section.conversation:not([hidden])";
const carryMethods = ["_parley/fork", "_parley/handoff", "_parley/rewind"];

// fakeCarry answers the page's _parley/fork, /handoff and /rewind in the WebSocket, and
// passes everything else on. It returns the requests it answered.
async function fakeCarry(page, { how = "seeded", summary } = {}) {
  const calls = [];
  await page.routeWebSocket(/\/acp$/, (ws) => {
    const server = ws.connectToServer();
    const waiting = new Map();
    let n = 0;
    let workspace = "";
    let defaultAgent = "";
    const ask = (method, params) =>
      new Promise((resolve, reject) => {
        const id = `fake-${++n}`;
        waiting.set(id, { resolve, reject });
        server.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      });
    server.onMessage((m) => {
      const msg = JSON.parse(m);
      const w = msg.method === undefined && waiting.get(msg.id);
      if (w) {
        waiting.delete(msg.id);
        return msg.error ? w.reject(new Error(msg.error.message)) : w.resolve(msg.result);
      }
      const meta = msg.result?._meta?.parley;
      if (meta?.workspace) (workspace = meta.workspace), (defaultAgent = meta.defaultAgent);
      ws.send(m);
    });
    ws.onMessage(async (m) => {
      const msg = JSON.parse(m);
      if (!carryMethods.includes(msg.method)) return server.send(m);
      calls.push({ method: msg.method, params: msg.params });
      try {
        const p = msg.params;
        const undo = msg.method === "_parley/rewind" ? await ask("_parley/undo", { sessionId: p.sessionId, turn: p.turn, rewind: true }) : undefined;
        const agent = p.agent ?? defaultAgent;
        const made = await ask("session/new", { cwd: workspace, mcpServers: [], _meta: { parley: { agent } } });
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { sessionId: made.sessionId, agent, how, summary, undo } }));
      } catch (e) {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32603, message: e.message } }));
      }
    });
  });
  return calls;
}

// aConversation: a turn that wrote hello.txt (turn 1 of parley's record), then another.
async function aConversation(page, web) {
  await page.goto(web.url);
  await send(page, "write");
  await page.locator(".card.changes", { hasText: "1 file changed" }).waitFor();
  await send(page, "after the write");
  await page.locator(".msg.agent", { hasText: "echo: after the write" }).waitFor();
  assert.ok(existsSync(join(web.workspace, "hello.txt")));
}

test("against a fake: Rewind to here and Edit and resend, from a past message", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    const calls = await fakeCarry(page);
    await aConversation(page, web);
    const first = page.locator(`${view} .msg.user`, { hasText: "write" }).first();
    assert.equal(await page.locator(`${view} .msg.user`, { hasText: "after the write" }).locator(".rewind").count(), 0, "a turn that changed nothing has no number to rewind to");
    await shot(page, "carry-message-actions");
    await first.locator("button", { hasText: "Rewind to here" }).click();
    await page.locator(".tab").nth(1).waitFor();
    assert.deepEqual(calls.at(-1), { method: "_parley/rewind", params: { sessionId: calls.at(-1).params.sessionId, turn: 1 } });
    await page.locator(`${view} .notice`, { hasText: /^Rewound Scripted agent to before turn 1: a new session, its first prompt carrying the conversation; 1 file brought back\.$/ }).waitFor();
    assert.ok(!existsSync(join(web.workspace, "hello.txt")), "the rewind brought the files back");
    assert.equal(await page.locator(".tab.active .tab-agent").textContent(), "Scripted agent");
    await shot(page, "carry-rewound");
    // Edit and resend, from the first conversation's tab: a rewind, then the edited text.
    await page.locator(".tab").first().locator(".tab-label").click();
    const again = page.locator(`${view} .msg.user`, { hasText: "write" }).first();
    await again.locator("button", { hasText: "Edit and resend" }).click();
    const edit = page.locator(`${view} .msg.user textarea.edit-input`);
    assert.equal(await edit.inputValue(), "write");
    await edit.fill("edited text");
    await shot(page, "carry-editing");
    await page.locator(`${view} .msg.user button`, { hasText: "Rewind and send" }).click();
    await page.locator(".tab").nth(2).waitFor();
    await page.locator(`${view} .msg.agent`, { hasText: "echo: edited text" }).waitFor();
    assert.equal(calls.length, 2);
    assert.equal(calls[1].method, "_parley/rewind");
    assert.equal(calls[1].params.turn, 1);
    assert.equal(await page.locator(`${view} .msg.user`, { hasText: "edited text" }).count(), 1);
    await page.setViewportSize({ width: 390, height: 760 });
    await shot(page, "carry-resent-phone");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

test("against a fake: the conversation menu forks and hands off; a summary is shown", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    const calls = await fakeCarry(page, { how: "summarised", summary: "The user asked for hello.txt; it was written." });
    await aConversation(page, web);
    await page.locator("button.conv-menu").click();
    await page.locator(".carry button", { hasText: "Fork" }).click();
    await page.locator(".tab").nth(1).waitFor();
    assert.equal(calls[0].method, "_parley/fork");
    assert.deepEqual(Object.keys(calls[0].params), ["sessionId"]);
    await page.locator(`${view} .notice`, { hasText: "Forked from Scripted agent: a new session, seeded with a summary" }).waitFor();
    // Hand off, to an agent from _parley/agents (not the one it is with).
    await page.locator(".tab").first().locator(".tab-label").click();
    await page.locator("button.conv-menu").click();
    const to = page.locator('.carry select[aria-label="hand off to"]');
    await to.locator("option[value=eliza]").waitFor({ state: "attached" });
    await shot(page, "carry-menu");
    await page.setViewportSize({ width: 390, height: 760 });
    await shot(page, "carry-menu-phone");
    await page.setViewportSize({ width: 1100, height: 760 });
    await to.selectOption("eliza");
    await page.locator(".carry button", { hasText: "Hand off" }).click();
    await page.locator(".tab.active", { hasText: "Eliza" }).waitFor();
    assert.deepEqual(calls[1], { method: "_parley/handoff", params: { sessionId: calls[0].params.sessionId, agent: "eliza" } });
    const line = page.locator(`${view} .notice`, { hasText: "Handed off from Scripted agent to eliza" });
    await line.waitFor();
    await line.locator("summary", { hasText: "What was sent" }).click();
    await line.locator(".notice-detail", { hasText: "The user asked for hello.txt; it was written." }).waitFor();
    await send(page, "I feel handed over");
    await page.locator(`${view} .msg.agent`).first().waitFor();
    await shot(page, "carry-handed-off");
    assert.equal(await page.locator(".tab").count(), 3, "the first conversation, its fork, the hand-off");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

// Passes once acpserver's carry.go answers _parley/fork, /handoff and /rewind (issue 29):
// the same clicks, no fake.
test("against parley: fork, hand-off and rewind open the conversation in a new tab", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await aConversation(page, web);
    await page.locator("button.conv-menu").click();
    await page.locator(".carry button", { hasText: "Fork" }).click();
    await page.locator(".tab").nth(1).waitFor();
    await page.locator(`${view} .notice`, { hasText: /^Forked from Scripted agent: / }).waitFor();
    await send(page, "in the fork");
    await page.locator(`${view} .msg.agent`, { hasText: "echo: in the fork" }).waitFor();
    await page.locator(".tab").first().locator(".tab-label").click();
    await page.locator("button.conv-menu").click();
    await page.locator('.carry select[aria-label="hand off to"]').selectOption("eliza");
    await page.locator(".carry button", { hasText: "Hand off" }).click();
    await page.locator(".tab.active", { hasText: "Eliza" }).waitFor();
    await page.locator(`${view} .notice`, { hasText: /^Handed off from Scripted agent to eliza: / }).waitFor();
    await page.locator(".tab").first().locator(".tab-label").click();
    await page.locator(`${view} .msg.user`, { hasText: "write" }).first().locator("button", { hasText: "Rewind to here" }).click();
    await page.locator(".tab").nth(3).waitFor();
    await page.locator(`${view} .notice`, { hasText: /^Rewound Scripted agent to before turn 1: .*1 file brought back\.$/ }).waitFor();
    assert.ok(!existsSync(join(web.workspace, "hello.txt")), "the rewind brought the files back");
    // What came before stays reachable.
    await page.locator("button", { hasText: "Sessions" }).click();
    await page.locator(".session-list li").nth(3).waitFor(); // the list is fetched after the click: at least four
    await shot(page, "carry-real");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});
