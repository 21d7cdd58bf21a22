// The web chat in headless Chromium, against the real `parley web`.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { closeBrowser, closeConversations, newPage, scriptedAgent, send, shot, startWeb, writeFile } from "./harness.mjs";
import { commandOutput } from "./commandoutput.mjs";
import { longText } from "./longtext.mjs";

after(closeBrowser);

test("Eliza replies to a typed message", async () => {
  const web = await startWeb();
  try {
    const page = await newPage();
    await page.goto(web.url);
    assert.equal(new URL(page.url()).search, "", "the token left the address bar");
    await send(page, "I am worried about my tests");
    await page.locator(".msg.agent", { hasText: "worried about your tests" }).waitFor();
    await page.locator(".msg.user", { hasText: "I am worried about my tests" }).waitFor();
    await shot(page, "eliza-reply");
    // The agent's own commands complete after a slash.
    await page.locator("textarea.input").press("/");
    await page.locator(".popup li", { hasText: "/slowly" }).waitFor();
    await page.locator(".popup li", { hasText: "/undo" }).waitFor(); // parley's own, beside the agent's
    await page.keyboard.type("fl");
    await page.locator(".popup li", { hasText: "send n short chunks" }).waitFor();
    assert.equal(await page.locator(".popup li").count(), 1, "only the commands that start so");
    await shot(page, "slash-commands");
    await page.keyboard.press("Tab");
    assert.equal(await page.locator("textarea.input").inputValue(), "/flood ");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

test("the first screen names the workspace, the agent and what it is, and the agents parley knows", async () => {
  const web = await startWeb();
  try {
    for (const [name, viewport] of [["desktop", { width: 1100, height: 760 }], ["phone", { width: 390, height: 760 }]]) {
      const page = await newPage();
      await page.setViewportSize(viewport);
      await page.goto(web.url);
      const welcome = page.locator("section.conversation:not([hidden]) .welcome");
      await welcome.locator("li[data-agent=claude]").waitFor();
      const text = await welcome.innerText();
      assert.ok(text.includes(web.workspace), `the workspace: ${text}`);
      assert.match(text, /agent Eliza.* — a built-in demo agent/);
      assert.match(await welcome.locator("li[data-agent=eliza]").innerText(), /✓ eliza runs here/);
      for (const a of ["claude", "codex", "gemini"]) assert.match(await welcome.locator(`li[data-agent=${a}]`).innerText(), /needs a sign-in/);
      assert.match(text, /Esc or Stop stops a turn/);
      await shot(page, `first-screen-${name}`);
      await send(page, "hello");
      await page.locator(".msg.agent").first().waitFor();
      await welcome.waitFor({ state: "hidden" });
      assert.deepEqual(page.errors, []);
      await closeConversations(page); // the next page would show them: they are live
    }
  } finally {
    await web.stop();
  }
});

// Issue 31, item 8: the card of a call the agent titles with its tool's name reads as the
// terminal's does, "Run `go test ./...`", while it is asked about.
test("a tool card titled with the tool's name is named as parley's other views name it", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "ask-raw");
    const card = page.locator(".card.tool.asking");
    await card.locator("button[data-option=reject_once]").waitFor();
    await shot(page, "permission-raw-title");
    const title = await card.locator(".tool-head .title").innerText();
    assert.match(title, /go test \.\/\.\.\./, "the card names the command");
    assert.doesNotMatch(await card.innerText(), /run_terminal_command/, "the tool's raw name is the title");
    await card.locator("button[data-option=reject_once]").click();
    await page.locator(".msg.agent", { hasText: "permission: n" }).waitFor();
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

test("a permission asked by Eliza is allowed by a click, and one is rejected", async () => {
  const web = await startWeb();
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "request permission rm -rf build");
    const card = page.locator(".card.tool.asking");
    await card.locator("text=Risk: high").waitFor();
    await shot(page, "permission-asked");
    await card.locator("button[data-option=allow_once]").click();
    await page.locator(".msg.agent", { hasText: "permission: allow_once" }).waitFor();
    await send(page, "request permission rm -rf dist");
    await page.locator(".card.tool.asking button[data-option=reject_once]").click();
    await page.locator(".msg.agent", { hasText: "permission: reject_once" }).waitFor();
    // Rejected, it never ran: refused by you, in parley's one wording of outcomes (not "failed").
    const refused = page.locator(".card.tool.refused");
    assert.equal(await refused.count(), 1, "the rejected call is shown refused");
    assert.match(await refused.innerText(), /refused by you/);
    assert.equal(await page.locator(".card.tool.failed").count(), 0, "nothing reads failed");
    await shot(page, "permission-answered");
  } finally {
    await web.stop();
  }
});

test("a tool call card shows its terminal's output", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "terminal");
    await page.locator(".msg.agent", { hasText: "terminal exited 0" }).waitFor();
    const term = page.locator(".card.tool pre.terminal");
    await term.filter({ hasText: "second line" }).waitFor();
    assert.match(await term.innerText(), /hello from the terminal\s+second line/);
    await page.locator(".card.tool .term-exit", { hasText: "exit 0" }).waitFor();
    await shot(page, "terminal-output");
  } finally {
    await web.stop();
  }
});

test("a command's output in a tool call's text is shown as it came, not as Markdown", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    for (const [name, viewport] of [["desktop", { width: 1100, height: 760 }], ["phone", { width: 390, height: 760 }]]) {
      const page = await newPage();
      await page.setViewportSize(viewport);
      await page.goto(web.url);
      await send(page, "output");
      await page.locator(".msg.agent", { hasText: "ran it" }).waitFor();
      const card = page.locator(".card.tool", { hasText: "go test" });
      const out = card.locator("pre.tool-output");
      await out.waitFor();
      assert.equal(await out.textContent(), commandOutput, "every line and character as the command printed it");
      assert.equal(await card.locator("h1, h2, h3, p, b, em, strong").count(), 0, "no Markdown or HTML made of it");
      assert.equal(await out.evaluate((el) => getComputedStyle(el).fontFamily.includes("mono")), true, "monospaced");
      await shot(page, `command-output-${name}`);
      assert.deepEqual(page.errors, []);
      await closeConversations(page); // the next page would show them: they are live
    }
  } finally {
    await web.stop();
  }
});

test("a file link and Open diff open in the page; a file outside the workspace is refused", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    writeFile(join(web.workspace, "main.go"), "package main\n\nfunc main() { run() }\n");
    for (const [name, viewport] of [["desktop", { width: 1100, height: 760 }], ["phone", { width: 390, height: 760 }]]) {
      const page = await newPage();
      await page.setViewportSize(viewport);
      await page.goto(web.url);
      await send(page, "files");
      await page.locator(".msg.agent", { hasText: "files shown" }).waitFor();
      // The location: the file, read through parley, its line marked.
      await page.locator(".card.tool", { hasText: "Edit main.go here" }).locator(".locations button").click();
      const viewer = page.locator(".viewer");
      await viewer.locator(".fl.at", { hasText: "func main() { run() }" }).waitFor();
      assert.equal(await viewer.locator(".fl").count(), 3);
      assert.equal(await viewer.locator(".fl.at .no").textContent(), "3");
      await shot(page, `file-view-${name}`);
      await page.keyboard.press("Escape");
      await viewer.waitFor({ state: "detached" });
      // The diff, a hunk with its header and numbered lines.
      await page.locator(".card.tool", { hasText: "Edit main.go here" }).locator("button", { hasText: "Open diff" }).click();
      await viewer.locator(".hunk-head", { hasText: "@@ -1,3 +1,3 @@" }).waitFor();
      assert.equal(await viewer.locator(".dl.del .t").textContent(), "func main() {}");
      assert.equal(await viewer.locator(".dl.add .t").textContent(), "func main() { run() }");
      await shot(page, `diff-view-${name}`);
      await viewer.locator(".viewer-close").click();
      await viewer.waitFor({ state: "detached" });
      // Outside the workspace: parley refuses, the page says so and shows nothing of it.
      await page.locator(".card.tool", { hasText: "Read the passwords" }).locator(".locations button").click();
      await viewer.locator(".notice.error").waitFor();
      assert.doesNotMatch(await viewer.innerText(), /root:/);
      await page.keyboard.press("Escape");
      assert.deepEqual(page.errors, []);
      await closeConversations(page); // the next page would show them: they are live
    }
  } finally {
    await web.stop();
  }
});

test("a long reply shown as plain text breaks only where its lines end", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "long");
    await page.locator(".msg.agent", { hasText: "line 799: the quick brown fox" }).waitFor();
    const pieces = await page.locator(".msg.agent .plain .piece").allTextContents();
    assert.ok(pieces.length > 1, `${pieces.length} pieces`);
    assert.equal(pieces.join(""), longText);
    for (const [i, p] of pieces.slice(0, -1).entries()) assert.ok(p.endsWith("\n"), `piece ${i} ends mid-line: …${JSON.stringify(p.slice(-30))}`);
    await shot(page, "long-reply");
  } finally {
    await web.stop();
  }
});

test("a plan, a diff, usage, config options and an elicitation appear and work", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "plan\ndiff\nusage\nconfig");
    await page.locator(".msg.agent", { hasText: "style terse, brave false" }).waitFor();
    // The plan as a checklist.
    const plan = page.locator(".card.plan");
    await plan.locator("text=Plan · 1/3").waitFor();
    assert.equal(await plan.locator("li.plan-completed").count(), 1);
    // The diff, line by line.
    const diff = page.locator(".card.tool .diff");
    assert.equal(await diff.locator(".dl.del").innerText(), '-\tprintln("hello")');
    assert.equal(await diff.locator(".dl.add").innerText(), '+\tprintln("hello, world")');
    // Usage and cost.
    await page.locator(".usage", { hasText: "53.0k / 200.0k (27%) · $0.05" }).waitFor();
    // Config options: a select and a boolean, set through parley.
    await page.locator('select[aria-label="Style"]').selectOption("chatty");
    await page.locator('input[data-config="brave"]').check();
    await page.waitForFunction(() => (document.querySelector('input[data-config="brave"]')).checked);
    await send(page, "config");
    await page.locator(".msg.agent", { hasText: "style chatty, brave true" }).waitFor();
    await shot(page, "plan-diff-usage-config");
    // An elicitation: the form, filled and sent.
    await send(page, "elicit");
    const form = page.locator(".card.elicitation");
    await form.locator("text=Which strategy?").waitFor();
    await shot(page, "elicitation-form");
    await form.locator("select").selectOption("fast");
    await form.locator("input[type=number]").fill("3");
    await form.locator("button[type=submit]").click();
    await page.locator(".msg.agent", { hasText: 'elicitation: accept {"retries":3,"strategy":"fast"}' }).waitFor();
    await shot(page, "elicitation-answered");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

test("an agent's reply with <img onerror>, <script> and javascript: links runs nothing", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    const dialogs = [];
    page.on("dialog", (d) => (dialogs.push(d.message()), d.dismiss()));
    await page.goto(web.url);
    await send(page, "xss");
    const reply = page.locator(".msg.agent", { hasText: "Look:" });
    await reply.waitFor();
    assert.equal(await reply.locator("script, img[onerror], [onerror]").count(), 0, "no element from the agent's HTML");
    assert.match(await reply.innerText(), /<img src="x" onerror=/, "the HTML is shown as text");
    for (const a of await reply.locator("a").all()) {
      const href = await a.getAttribute("href");
      assert.ok(href === "#" || href.startsWith("https:"), `link ${href}`);
      if (href === "#") await a.click();
    }
    assert.equal(await reply.locator("img").count(), 0, "no image from anywhere but data the agent sent");
    await page.waitForTimeout(200); // a handler, had one been attached, would have run by now
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(dialogs, []);
    await shot(page, "hostile-reply");
  } finally {
    await web.stop();
  }
});

test("characters that show nothing are shown by their code points, emoji stay", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "hidden");
    const reply = page.locator(".msg.agent", { hasText: "end" });
    await reply.waitFor();
    const text = await reply.innerText();
    for (const want of ["tags <U+E0041><U+E0042>", "soft<U+00AD>hyphen", "f<U+2061>x", "a<U+200C>b", "<U+202E>gnp.exe", "filler <U+3164>", "emoji \u26a0\ufe0f", "\u{1F469}\u200d\u{1F4BB}"]) {
      assert.ok(text.includes(want), `${JSON.stringify(want)} is not shown in ${JSON.stringify(text)}`);
    }
    for (const raw of ["\u{E0041}", "\u00ad", "\u2061", "\u200c", "\u202e", "\u3164"]) assert.ok(!text.includes(raw), `${JSON.stringify(raw)} reached the page raw`);
    const card = page.locator(".tool", { hasText: "Run rm" }).first();
    await card.waitFor();
    const title = await card.innerText();
    assert.ok(title.includes("Run rm<U+E0020><U+E002D>rf <U+202E>evil"), `the tool call shows ${JSON.stringify(title)}`);
    await shot(page, "hidden-characters");
  } finally {
    await web.stop();
  }
});

test("keyboard only, in the dark theme: a mention, a command, a queued message taken back", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  writeFile(web.workspace + "/notes.md", "# notes\n");
  try {
    const page = await newPage({ colorScheme: "dark" });
    await page.goto(web.url);
    const input = page.locator("textarea.input");
    await input.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.className), "input", "the composer has the focus");
    await page.keyboard.type("look at @not");
    await page.locator(".popup li", { hasText: "notes.md" }).waitFor();
    await page.keyboard.press("Enter"); // takes the file
    assert.equal(await input.inputValue(), "look at @notes.md ");
    await page.keyboard.press("Enter"); // sends
    await page.locator(".msg.user .chip.file", { hasText: "@notes.md" }).waitFor();
    await page.keyboard.type("elicit"); // a turn that waits for an answer
    await page.keyboard.press("Enter");
    await page.locator(".card.elicitation").waitFor();
    await input.focus();
    await page.keyboard.type("this one waits");
    await page.keyboard.press("Enter");
    await page.locator(".queued", { hasText: "this one waits" }).waitFor();
    await shot(page, "dark-queue");
    await page.locator(".queued button").focus();
    await page.keyboard.press("Enter"); // takes it back: the text returns to the composer
    await page.waitForFunction(() => (document.querySelector("textarea.input")).value === "this one waits");
    await page.locator(".card.elicitation button", { hasText: "Cancel" }).focus();
    await page.keyboard.press("Enter");
    await page.locator(".msg.agent", { hasText: "elicitation: cancel" }).waitFor();
    await shot(page, "dark-keyboard");
    assert.equal(await page.locator(".msg.user", { hasText: "this one waits" }).count(), 0, "the message taken back was never sent");
  } finally {
    await web.stop();
  }
});

test("the turn's changed files: the diff, and undo", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "write");
    const card = page.locator(".card.changes");
    await card.locator("text=1 file changed").waitFor();
    const file = card.locator("li.change", { hasText: "hello.txt" });
    await file.locator("button", { hasText: "Diff" }).click();
    await file.locator(".dl.add", { hasText: "from the agent" }).waitFor();
    await shot(page, "changes-diff");
    assert.ok(existsSync(web.workspace + "/hello.txt"));
    await file.locator("button", { hasText: "Undo" }).click();
    await card.locator("li.change.undone").waitFor();
    assert.ok(!existsSync(web.workspace + "/hello.txt"), "the undo deleted the file the turn created");
    await shot(page, "changes-undone");
  } finally {
    await web.stop();
  }
});

test("parley's own commands complete after a slash, from its table, and /undo typed undoes the turn", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "write");
    const card = page.locator(".card.changes");
    await card.locator("text=1 file changed").waitFor();
    const input = page.locator("textarea.input");
    await input.focus();
    await page.keyboard.type("/un");
    await page.locator(".popup li", { hasText: "/undo" }).waitFor();
    await page.locator(".popup li", { hasText: "never overwrites a later change" }).waitFor();
    await page.keyboard.press("Tab");
    assert.equal(await input.inputValue(), "/undo ");
    await page.keyboard.press("Enter");
    await card.locator("li.change.undone").waitFor();
    assert.ok(!existsSync(web.workspace + "/hello.txt"), "/undo deleted the file the turn created");
    assert.equal(await page.locator(".msg.user", { hasText: "/undo" }).count(), 0, "/undo was parley's, not sent to the agent");
    await page.keyboard.type("/rewind 1");
    await page.keyboard.press("Enter");
    await page.locator(".msg.user", { hasText: "/rewind 1" }).waitFor(); // not one of the page's: the agent's to answer
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

test("a change that makes git run code is flagged, a mode change shown", async () => {
  const workspace = mkdtempSync(join(tmpdir(), "parley-web-ws-"));
  execFileSync("git", ["init", "-q", workspace]);
  writeFile(join(workspace, "run.sh"), "echo hi\n");
  chmodSync(join(workspace, "run.sh"), 0o644);
  const web = await startWeb(["--agent-command", scriptedAgent()], { cwd: workspace });
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "hook");
    const card = page.locator(".card.changes");
    await card.locator("text=3 files changed").waitFor();
    assert.ok(await card.evaluate((el) => el.classList.contains("runs-code")), "the card is marked");
    await card.locator(".runs-code-head", { hasText: "2 changes make git run code" }).waitFor();
    const hook = card.locator("li.change.runs-code", { hasText: ".git/hooks/pre-commit" });
    await hook.locator(".runs-code-note", { hasText: "makes git run code: a git hook: git runs it" }).waitFor();
    const config = card.locator("li.change.runs-code", { hasText: ".git/config" });
    const reason = await config.locator(".runs-code-note").textContent();
    assert.match(reason, /^⚠ makes git run code: sets .*core\.fsmonitor/);
    assert.match(reason, /filter\.e<U\+202E>live\.clean/, "the reason's bidi override is shown by its code point");
    const script = card.locator("li.change", { hasText: "run.sh" });
    assert.equal(await script.locator(".mode").textContent(), " mode 644 → 755");
    assert.equal(await script.locator(".counts").textContent(), " +0 −0", "a mode alone changes no line, and says so");
    assert.equal(await script.locator(".runs-code-note").count(), 0, "an executable script is no hook");
    await script.locator("button", { hasText: "Diff" }).click();
    await script.locator(".change-diff .mode", { hasText: "mode 644 → 755, the text did not change" }).waitFor();
    await hook.locator("button", { hasText: "Diff" }).click();
    await hook.locator(".dl.add", { hasText: "echo from the agent" }).waitFor();
    assert.equal(await script.locator(".change-diff .dl").count(), 0, "no line of run.sh changed");
    await shot(page, "changes-runs-code");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

test("a second conversation with another agent, in a tab of its own", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "hello scripted");
    await page.locator(".msg.agent", { hasText: "echo: hello scripted" }).waitFor();
    await page.locator("button.tab-new").click();
    await page.locator('.new-conv select[aria-label="agent"]').selectOption("eliza");
    await page.locator(".new-conv button", { hasText: "Start" }).click();
    await page.locator(".tab.active", { hasText: "Eliza" }).waitFor();
    await send(page, "I feel tired");
    await page.locator("section.conversation:not([hidden]) .msg.agent").waitFor();
    assert.equal(await page.locator("section.conversation:not([hidden]) .msg.agent", { hasText: "echo:" }).count(), 0, "Eliza's tab shows only Eliza");
    await shot(page, "two-conversations");
    await page.locator(".tab-label", { hasText: "Scripted agent" }).click();
    await page.locator("section.conversation:not([hidden]) .msg.agent", { hasText: "echo: hello scripted" }).waitFor();
    assert.equal(await page.locator(".tab").count(), 2);
  } finally {
    await web.stop();
  }
});

test("a reloaded page gets its conversation back", async () => {
  const web = await startWeb();
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "tool call Build");
    await page.locator(".msg.agent", { hasText: "tool call Build: completed" }).waitFor();
    await page.reload();
    await page.locator(".card.tool", { hasText: "Build" }).waitFor();
    await page.locator(".msg.user", { hasText: "tool call Build" }).waitFor();
    assert.equal(await page.locator(".tab").count(), 1);
  } finally {
    await web.stop();
  }
});

test("without the token the page is refused", async () => {
  const web = await startWeb();
  try {
    const page = await newPage();
    const resp = await page.goto(web.origin + "/");
    assert.equal(resp.status(), 401);
    const bad = await page.goto(web.origin + "/?token=wrong");
    assert.equal(bad.status(), 403);
    await shot(page, "no-token");
  } finally {
    await web.stop();
  }
});

test("a page the agent asks to open that is not http or https is declined, never opened", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await page.evaluate(() => {
      window.opened = [];
      window.open = (u) => (window.opened.push(String(u)), null);
    });
    for (const [url, why] of [
      ["javascript:alert(document.domain)", "not javascript: addresses"],
      ["data:text/html,<script>alert(1)</script>", "not data: addresses"],
      ["https://accounts.example.com@evil.example/", "user name or password"],
    ]) {
      await send(page, `elicit-url ${url}`);
      await page.locator(".notice", { hasText: why }).waitFor();
      await page.locator(".msg.agent", { hasText: "elicitation: decline" }).last().waitFor();
    }
    assert.equal(await page.locator(".card.elicitation").count(), 0, "nothing was put to the user");
    await shot(page, "page-url-declined");
    // An https page is asked, and opened on a click.
    await send(page, "elicit-url https://example.com/device");
    await page.locator(".card.elicitation button", { hasText: "Open" }).click();
    await page.locator(".msg.agent", { hasText: "elicitation: accept" }).waitFor();
    assert.deepEqual(await page.evaluate(() => window.opened), ["https://example.com/device"]);
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

test("New address: parley prints a new token, the old address stops working, this page goes on", async () => {
  const web = await startWeb();
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "I am worried about my tests");
    await page.locator(".msg.agent", { hasText: "worried about your tests" }).waitFor();
    await page.locator("button", { hasText: "New address" }).click();
    await shot(page, "new-address");
    await Promise.all([page.waitForEvent("load"), page.locator("button", { hasText: "Replace the address" }).click()]);
    const fresh = await web.nextAddress();
    assert.notEqual(fresh, web.url);
    assert.equal(new URL(fresh).origin, web.origin);
    // This page reloaded with a session under the new token: its conversation is back.
    await page.locator(".msg.agent", { hasText: "worried about your tests" }).waitFor();
    await send(page, "I feel better now");
    await page.locator(".msg.user", { hasText: "I feel better now" }).waitFor();
    const other = await newPage();
    assert.equal((await other.goto(web.url)).status(), 403, "the old address");
    assert.equal((await other.goto(fresh)).status(), 200, "the new address");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});
