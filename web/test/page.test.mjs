// The web chat as issue 31 and issue 29 ask it: what a reload or a second window gets
// back, the page on a phone, the theme switch, and fork, hand-off and rewind.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { closeBrowser, newPage, scriptedAgent, send, shot, startWeb } from "./harness.mjs";

after(closeBrowser);

const phone = { width: 390, height: 760 };
const desktop = { width: 1100, height: 760 };
const view = "section.conversation:not([hidden])";

// ms reads a tool card's duration ("412 ms", "1.2 s").
function ms(took) {
  const m = /^([\d.]+) (ms|s)$/.exec(took);
  assert.ok(m, `a duration: ${JSON.stringify(took)}`);
  return Number(m[1]) * (m[2] === "s" ? 1000 : 1);
}

// Issue 31, item 4.
test("a reload and a second window get the conversation back: its changes, its tool durations, its title", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.goto(web.url);
    await send(page, "title Fix the greeting\nwrite");
    await page.locator(".card.changes", { hasText: "1 file changed" }).waitFor();
    await send(page, "slow-tool");
    await page.locator(".msg.agent", { hasText: "built" }).waitFor();
    const took = ms(await page.locator(".card.tool .took").textContent());
    assert.ok(took >= 250, `the live duration ${took} ms`); // the page's clock: when the updates came
    for (const [name, p] of [["reload", page], ["second-window", await newPage()]]) {
      if (p === page) await p.reload();
      else await p.goto(web.url);
      const changes = p.locator(".card.changes", { hasText: "1 file changed" });
      await changes.waitFor();
      // The card is back where it was: after the prompt that made it, before the next one.
      const order = await p.locator(`${view} .log > *`).evaluateAll((els) => els.map((e) => (e.classList.contains("changes") ? "changes" : e.classList.contains("user") ? "user:" + e.textContent.split("\n")[0] : e.classList.contains("tool") ? "tool" : "other")));
      const at = order.indexOf("changes");
      assert.ok(at > order.findIndex((x) => x.startsWith("user:title")) && at < order.findIndex((x) => x.startsWith("user:slow-tool")), `the changes card's place: ${order}`);
      await changes.locator("li.change", { hasText: "hello.txt" }).locator("button", { hasText: "Diff" }).click();
      await changes.locator(".dl.add", { hasText: "from the agent" }).waitFor();
      const again = ms(await p.locator(".card.tool .took").textContent());
      assert.ok(again >= 390 && again < 1000, `the duration after a ${name}: ${again} ms (parley's clock; live, the page's: ${took} ms)`);
      assert.equal(await p.locator(".tab").count(), 1, "the same conversation, no new empty one");
      await p.locator(".tab.active .tab-agent", { hasText: "Scripted agent" }).waitFor();
      await p.locator(".tab.active .tab-title", { hasText: "Fix the greeting" }).waitFor();
      await shot(p, `reload-${name}`);
      await p.setViewportSize(phone);
      await shot(p, `reload-${name}-phone`);
      await p.setViewportSize(desktop);
      assert.deepEqual(p.errors, []);
    }
    // The second window goes on with the same conversation, which the first shows.
    const second = await newPage();
    await second.goto(web.url);
    await second.locator(".card.changes").waitFor();
    await send(second, "from the second window");
    await page.locator(".msg.agent", { hasText: "echo: from the second window" }).waitFor();
    // The Sessions list names it by its title and agent, not by its id.
    await page.locator("button", { hasText: "Sessions" }).click();
    const item = page.locator(".session-list li").first();
    await item.locator(".session-title", { hasText: "Fix the greeting" }).waitFor();
    assert.match(await item.innerText(), /scripted/);
    assert.doesNotMatch(await item.innerText(), /scripted-1|parley-[0-9a-f]{6}/, "no id shown");
    await shot(page, "sessions-list");
    await page.setViewportSize(phone);
    await shot(page, "sessions-list-phone");
  } finally {
    await web.stop();
  }
});

// Issue 31, item 12: the page on a phone.
test("on a phone: tab names keep the agent, counts have room, diff lines scroll in their box", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.setViewportSize(phone);
    await page.goto(web.url);
    await send(page, "title A conversation whose title is far too long for any phone\nwrite\nwide");
    await page.locator(".msg.agent", { hasText: "wide shown" }).waitFor();
    await page.locator("button.tab-new").click();
    await page.locator('.new-conv select[aria-label="agent"]').selectOption("eliza");
    await page.locator(".new-conv button", { hasText: "Start" }).click();
    await page.locator(".tab.active", { hasText: "Eliza" }).waitFor();
    await page.locator(".tab-label", { hasText: "Scripted agent" }).click();
    await page.locator(".tab.active .tab-title").waitFor();
    for (const tab of await page.locator(".tab").all()) {
      const agent = await tab.locator(".tab-agent").boundingBox();
      assert.ok(agent && agent.width > 30 && agent.x >= 0 && agent.x + agent.width <= phone.width, `the agent's name shows: ${JSON.stringify(agent)}`);
    }
    const title = page.locator(".tab.active .tab-title");
    assert.ok(await title.evaluate((el) => el.scrollWidth > el.clientWidth && getComputedStyle(el).textOverflow === "ellipsis"), "the long title ends in an ellipsis");
    // A changed file's counts and buttons do not touch.
    const change = page.locator("li.change", { hasText: "hello.txt" });
    const counts = await change.locator(".counts").boundingBox();
    const diff = await change.locator("button", { hasText: "Diff" }).boundingBox();
    assert.ok(diff.y > counts.y + counts.height - 1 || diff.x >= counts.x + counts.width + 4, `counts ${JSON.stringify(counts)}, Diff ${JSON.stringify(diff)}`);
    // The wide diff scrolls within its box; the card stays on the screen.
    const lines = page.locator(".card.tool", { hasText: "wide.go" }).locator(".diff-lines");
    const box = await lines.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= phone.width, `the diff's box ${JSON.stringify(box)}`);
    assert.ok(await lines.evaluate((el) => el.scrollWidth > el.clientWidth + 100), "the long line is there to scroll to");
    const add = lines.locator(".dl.add").last();
    const widths = await add.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    assert.ok(widths[0] <= widths[1] + 1 && widths[1] > phone.width, `the added line's background covers its whole text: ${widths}`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), phone.width, "the page itself does not scroll sideways");
    await lines.evaluate((el) => (el.scrollLeft = el.scrollWidth));
    await shot(page, "phone-tabs-changes-diff");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

// Issue 31, item 12: the / menu lists parley's own commands and never hides a question's buttons.
test("the / menu lists parley's own commands and leaves a question's buttons in view", async () => {
  for (const [name, size] of [["desktop", desktop], ["phone", phone]]) {
    const web = await startWeb(["--agent-command", scriptedAgent()]); // each its own: a page shows the conversations parley holds
    try {
      const page = await newPage();
      await page.setViewportSize(size);
      await page.goto(web.url);
      const input = page.locator(`${view} textarea.input`);
      await input.focus();
      await page.keyboard.type("/");
      await page.locator(".popup li", { hasText: "/undo" }).waitFor();
      await page.locator(".popup li", { hasText: "/keep" }).waitFor();
      await input.fill("");
      // A question, then the menu: its buttons stay where a finger can reach them.
      await send(page, "ask-raw");
      const buttons = page.locator(".card.tool.asking .q-buttons");
      await buttons.waitFor();
      await input.focus();
      await page.keyboard.type("/");
      const popup = page.locator(".popup");
      const b = await buttons.boundingBox();
      if (await popup.isVisible()) {
        const p = await popup.boundingBox();
        assert.ok(p.y >= b.y + b.height, `the menu ${JSON.stringify(p)} covers the buttons ${JSON.stringify(b)}`);
      }
      await shot(page, `slash-menu-question-${name}`);
      await buttons.locator("button[data-option=reject_once]").click({ trial: true }); // nothing is over it
      await input.fill("");
      await buttons.locator("button[data-option=reject_once]").click();
      await page.locator(".msg.agent", { hasText: "permission: n" }).waitFor();
      // A question that comes while the menu is open closes it.
      await send(page, "ask-later");
      await input.focus();
      await page.keyboard.type("/");
      await popup.waitFor();
      await buttons.waitFor();
      await popup.waitFor({ state: "hidden" });
      await buttons.locator("button[data-option=reject_once]").click({ trial: true });
      await input.fill("");
      await buttons.locator("button[data-option=reject_once]").click();
      await page.locator(".msg.agent", { hasText: "permission: n" }).nth(1).waitFor();
      assert.deepEqual(page.errors, []);
      await page.context().close();
    } finally {
      await web.stop();
    }
  }
});

// Issue 31, item 12: a theme switch.
test("the theme switch: light, dark or the system's, remembered, with no inline style", async () => {
  const web = await startWeb();
  try {
    const page = await newPage({ colorScheme: "light" });
    const csp = [];
    page.on("console", (m) => /Content Security Policy/i.test(m.text()) && csp.push(m.text()));
    await page.goto(web.url);
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await bg();
    assert.equal(light, "rgb(255, 255, 255)");
    const sw = page.locator("select.theme");
    await sw.selectOption("dark");
    assert.equal(await bg(), "rgb(13, 17, 23)");
    await send(page, "I feel fine");
    await page.locator(".msg.agent").first().waitFor();
    await shot(page, "theme-dark");
    await page.setViewportSize(phone);
    await shot(page, "theme-dark-phone");
    await page.reload();
    await page.locator(".msg.agent").first().waitFor();
    assert.equal(await bg(), "rgb(13, 17, 23)", "remembered");
    assert.equal(await sw.inputValue(), "dark");
    await sw.selectOption("system");
    assert.equal(await bg(), light);
    await page.emulateMedia({ colorScheme: "dark" });
    assert.equal(await bg(), "rgb(13, 17, 23)", "the system's dark");
    await sw.selectOption("light");
    assert.equal(await bg(), light, "light over the system's dark");
    assert.equal(await page.evaluate(() => localStorage.getItem("parley.theme")), "light");
    assert.deepEqual(csp, [], "the page broke no rule of its Content-Security-Policy");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});

// Issue 31, item 9: one wording of outcomes. parley's word (_meta.parley.outcome and
// outcomeText, from acpserver) is what the card says; until parley sends it the fake adds
// it to the agent's "failed" the way parley does for a call the user refused.
test("a call the user refused reads as parley words it, not as failed", async () => {
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    const page = await newPage();
    await page.routeWebSocket(/\/acp$/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => server.send(m));
      server.onMessage((m) => {
        const msg = JSON.parse(m);
        const u = msg.method === "session/update" && msg.params.update;
        if (u?.toolCallId === "raw-1" && u.status === "failed" && !u._meta?.parley?.outcome) {
          u._meta = { ...u._meta, parley: { ...u._meta?.parley, outcome: "refused_by_you", outcomeText: "not run: refused by you" } };
          return ws.send(JSON.stringify(msg));
        }
        ws.send(m);
      });
    });
    await page.goto(web.url);
    await send(page, "ask-raw");
    await page.locator(".card.tool.asking button[data-option=reject_once]").click();
    await page.locator(".msg.agent", { hasText: "permission: n" }).waitFor();
    const card = page.locator(".card.tool", { hasText: "go test" });
    await card.locator(".tool-head .outcome", { hasText: "not run: refused by you" }).waitFor();
    assert.ok(await card.evaluate((el) => el.classList.contains("refused") && !el.classList.contains("failed")));
    assert.equal(await card.locator(".status").getAttribute("aria-label"), "refused");
    assert.equal(await card.locator(".took").count(), 0, "no duration: it never ran");
    await shot(page, "outcome-refused");
    await page.setViewportSize(phone);
    await shot(page, "outcome-refused-phone");
    assert.deepEqual(page.errors, []);
  } finally {
    await web.stop();
  }
});
