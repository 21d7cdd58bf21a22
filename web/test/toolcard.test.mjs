// The tool card in headless Chromium, without parley: a card redrawn while its output
// streams keeps the sections the user opened and the text they selected.
import { build } from "esbuild";
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { closeBrowser, newPage, repo } from "./harness.mjs";

after(closeBrowser);

async function cardPage() {
  const out = await build({
    stdin: { contents: `export { ToolCard } from "./ui/toolcard";`, resolveDir: join(repo, "web/src"), loader: "ts" },
    bundle: true, format: "iife", globalName: "toolcard", write: false, logLevel: "warning",
  });
  const page = await newPage();
  await page.setContent("<!doctype html><html><body></body></html>");
  await page.addScriptTag({ content: out.outputFiles[0].text });
  // A running command: its input, and a terminal whose output grows.
  await page.evaluate(() => {
    const term = { output: "line one\n", truncated: false };
    const session = { terminals: new Map([["term-1", term]]) };
    const entry = {
      kind: "tool",
      call: { toolCallId: "t1", status: "in_progress", kind: "execute", title: "make", rawInput: { command: "make all" }, content: [{ type: "terminal", terminalId: "term-1" }], started: Date.now() },
    };
    const card = new toolcard.ToolCard(entry, session, { openFile() {}, openDiff() {} });
    document.body.append(card.el);
    card.update();
    window.stream = (more) => {
      term.output += more;
      card.update();
    };
  });
  return page;
}

// selectIn selects the text from..to of the first text node under selector.
function selectIn(page, selector, from, to) {
  return page.evaluate(([selector, from, to]) => {
    const text = document.querySelector(selector).firstChild;
    getSelection().setBaseAndExtent(text, from, text, to);
  }, [selector, from, to]);
}

test("an open section stays open while output streams", async () => {
  const page = await cardPage();
  await page.locator("details.input summary").click();
  await page.evaluate(() => window.stream("line two\n"));
  await page.evaluate(() => window.stream("line three\n"));
  assert.equal(await page.locator("pre.terminal").textContent(), "line one\nline two\nline three\n");
  assert.equal(await page.locator("details.input").evaluate((d) => d.open), true, "the input the user opened was closed by the redraw");
  assert.deepEqual(page.errors, []);
});

test("a selection in the input or in the output survives the output streaming", async () => {
  const page = await cardPage();
  await page.locator("details.input summary").click();
  await selectIn(page, "details.input pre", 4, 13);
  const inInput = await page.evaluate(() => getSelection().toString());
  assert.equal(inInput, '"command"');
  await page.evaluate(() => window.stream("line two\n"));
  assert.equal(await page.evaluate(() => getSelection().toString()), inInput, "the selection in the input was lost");

  await selectIn(page, "pre.terminal", 0, 8);
  await page.evaluate(() => window.stream("line three\n"));
  assert.equal(await page.evaluate(() => getSelection().toString()), "line one", "the selection in the output was lost");
  assert.equal(await page.locator("pre.terminal").textContent(), "line one\nline two\nline three\n");
  assert.deepEqual(page.errors, []);
});
