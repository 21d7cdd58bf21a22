// The page's first screen chooses an agent (issue 31): each agent that can run here is a
// button that opens a conversation with it, in a tab of its own, as the "+" menu does.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeBrowser, closeConversations, newPage, scriptedAgent, send, shot, startWeb } from "./harness.mjs";

after(closeBrowser);

test("an agent clicked on the first screen opens a conversation with it", async () => {
  // The first conversation is with the scripted agent; Eliza is chosen from its first screen.
  const web = await startWeb(["--agent-command", scriptedAgent()]);
  try {
    for (const [name, viewport] of [["desktop", { width: 1100, height: 760 }], ["phone", { width: 390, height: 760 }]]) {
      const page = await newPage();
      await page.setViewportSize(viewport);
      await page.goto(web.url);
      const welcome = page.locator("section.conversation:not([hidden]) .welcome");
      const eliza = welcome.locator("li[data-agent=eliza] button.welcome-start");
      await eliza.waitFor();
      assert.match(await welcome.innerText(), /click one to start a conversation with it/);
      // Those that cannot run here are named, not offered; those to download are offered.
      for (const li of await welcome.locator("li").all()) {
        const buttons = await li.locator("button.welcome-start").count();
        const cls = await li.getAttribute("class");
        assert.equal(buttons, cls === "welcome-agent-no" ? 0 : 1, `${await li.innerText()} (${cls})`);
      }
      // Every agent with credential files, in this empty home, may need a sign-in.
      for (const a of ["claude", "codex", "gemini"]) {
        const li = welcome.locator(`li[data-agent=${a}]`);
        if (await li.count()) assert.match(await li.innerText(), new RegExp(`needs a sign-in .* · no sign-in found here: parley login --agent ${a}`));
      }
      assert.doesNotMatch(await welcome.locator("li[data-agent=eliza]").innerText(), /sign-in: parley login/);
      await shot(page, `first-screen-choose-${name}`);
      const tabs = page.locator(".tabs .tab");
      const before = await tabs.count();
      await eliza.click();
      await page.locator(".tabs .tab.active .tab-agent", { hasText: /eliza/i }).waitFor();
      assert.equal(await tabs.count(), before + 1, "a new tab");
      await send(page, "I am worried about my tests");
      await page.locator("section.conversation:not([hidden]) .msg.agent", { hasText: "worried about your tests" }).waitFor();
      await shot(page, `first-screen-chosen-${name}`);
      assert.deepEqual(page.errors, []);
      await closeConversations(page); // the next page would show them: they are live
    }
  } finally {
    await web.stop();
  }
});
