// The page's visibility rule (src/visible.ts) against the cases the Go rule is tested
// with (internal/toolui/testdata/visible.json): the same text shows the same in the
// terminal, in the page and in VS Code. No browser: the module is bundled for Node.
import { build } from "esbuild";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repo } from "./harness.mjs";

async function load() {
  const out = await build({ entryPoints: [join(repo, "web/src/visible.ts")], bundle: true, format: "esm", write: false, logLevel: "warning" });
  return import("data:text/javascript;base64," + Buffer.from(out.outputFiles[0].text).toString("base64"));
}

const cases = JSON.parse(readFileSync(join(repo, "internal/toolui/testdata/visible.json"), "utf8"));

test("visible agrees with toolui.SafeText on every shared case", async () => {
  const { visible } = await load();
  assert.ok(cases.length > 40, "the shared cases are read");
  for (const c of cases) assert.equal(visible(c.in), c.want, c.name);
});

test("a lone surrogate is shown by its code point", async () => {
  const { visible } = await load();
  assert.equal(visible("a\ud83d b\ude00"), "a<U+D83D> b<U+DE00>");
});

test("a stream judges a piece by the end of the one before", async () => {
  const { VisibleStream } = await load();
  for (const [pieces, want] of [
    [["warning \u26a0", "\ufe0f done"], "warning \u26a0\ufe0f done"],
    [["a", "\ufe0f"], "a<U+FE0F>"],
    [["\u{1F469}\u200d", "\u{1F4BB}"], "\u{1F469}\u200d\u{1F4BB}"],
    [["a\u200d", "b"], "a<U+200D>b"],
    [["ok", "\u{E0041}"], "ok<U+E0041>"],
    [["split \ud83d", "\ude00 emoji"], "split \u{1F600} emoji"],
  ]) {
    const st = new VisibleStream();
    assert.equal(pieces.map((p) => st.append(p)).join(""), want, JSON.stringify(pieces));
  }
});
