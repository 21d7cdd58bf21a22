// Builds the page into internal/webui/dist, which the Go binary embeds: the same bundle
// for parley web and for the VS Code webview. CI runs it and fails when the committed
// bundle differs (deterministic: no timestamps, no source maps).
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";

const out = new URL("../internal/webui/dist/", import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: "src/main.ts", style: "src/style.css" },
  bundle: true,
  minify: true,
  format: "iife",
  target: ["chrome110", "firefox115", "safari16"],
  outdir: out,
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
  alias: { "linkify-it": "./src/linkify-stub.ts" },
});
copyFileSync("src/index.html", out + "index.html");
