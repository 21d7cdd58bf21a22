// What the web chat's browser tests share: parley built once from this checkout, run as
// `parley web` with its own home (no user's settings or database), and headless Chromium
// (Debian's, through playwright-core). Screenshots go to $PARLEY_ARTIFACTS/web (default:
// .artifacts/web in the repository), where CI keeps them.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";

export const repo = resolve(import.meta.dirname, "../..");
export const artifacts = join(process.env.PARLEY_ARTIFACTS ?? join(repo, ".artifacts"), "web");
mkdirSync(artifacts, { recursive: true });

let built;
export function parleyBinary() {
  if (!built) {
    const dir = mkdtempSync(join(tmpdir(), "parley-web-test-"));
    built = join(dir, "parley");
    execFileSync("go", ["build", "-o", built, "./cmd/parley"], { cwd: repo, stdio: "inherit" });
  }
  return built;
}

// isolatedEnv gives parley a home of its own.
export function isolatedEnv() {
  const home = mkdtempSync(join(tmpdir(), "parley-web-home-"));
  return {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_DATA_HOME: join(home, "data"),
    XDG_STATE_HOME: join(home, "state"),
    XDG_CACHE_HOME: join(home, "cache"),
  };
}

// startWeb runs `parley web --no-open` with args and returns the address it printed.
export async function startWeb(args = [], { cwd } = {}) {
  const workspace = cwd ?? mkdtempSync(join(tmpdir(), "parley-web-ws-"));
  const proc = spawn(parleyBinary(), ["web", "--no-open", "--cwd", workspace, ...args], { env: isolatedEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  // Every line parley prints is an address: the first when it starts, another each time
  // the page has the token replaced.
  const lines = [];
  const waiting = [];
  let out = "";
  proc.stdout.on("data", (d) => {
    out += d;
    for (let i; (i = out.indexOf("\n")) >= 0; out = out.slice(i + 1)) {
      const line = out.slice(0, i);
      const w = waiting.shift();
      if (w) w.res(line);
      else lines.push(line);
    }
  });
  proc.on("exit", (code) => {
    for (const w of waiting.splice(0)) w.rej(new Error(`parley web exited ${code}: ${stderr}`));
  });
  const nextLine = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((res, rej) => waiting.push({ res, rej })));
  const url = await nextLine();
  const exited = new Promise((res) => proc.on("exit", res));
  return {
    url,
    workspace,
    origin: new URL(url).origin,
    stderr: () => stderr,
    nextAddress: nextLine,
    async stop() {
      proc.kill("SIGTERM");
      await exited;
    },
  };
}

export function scriptedAgent() {
  return `node ${join(repo, "web/test/scripted-agent.mjs")}`;
}

let browser;
export async function newPage({ colorScheme = "light" } = {}) {
  browser ??= await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] });
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 }, colorScheme });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.errors = errors;
  return page;
}

export async function closeBrowser() {
  await browser?.close();
}

export async function shot(page, name) {
  await page.screenshot({ path: join(artifacts, name + ".png") });
}

// send types a message into the composer and sends it with Enter.
export async function send(page, text) {
  const input = page.locator("section.conversation:not([hidden]) textarea.input");
  await input.fill(text);
  await input.press("Enter");
}

export function writeFile(path, text) {
  writeFileSync(path, text);
}

// closeConversations closes every conversation the page shows: a tab goes once parley has
// closed its session, so a page opened after it starts afresh instead of showing them.
export async function closeConversations(page) {
  while (await page.locator(".tab-close").count()) {
    const n = await page.locator(".tab").count();
    await page.locator(".tab-close").first().click();
    await page.waitForFunction((n) => document.querySelectorAll(".tab").length < n, n);
  }
}
