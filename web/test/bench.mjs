// The web chat's speed, measured in headless Chromium against the real `parley web`:
//
//   first paint     how soon the page paints after navigation (first-contentful-paint),
//                   and when it is ready to type in (its composer shown and connected);
//   flood           Eliza's `flood 100000` (100,000 message chunks) streamed into the
//                   page: the time until the last chunk is on screen, and the longest
//                   task meanwhile (the Long Tasks API: the page must never freeze, no
//                   task over 200 ms), against `parley run "flood 100000"` in a terminal
//                   pipe in the same run.
//
// Run: npm run bench (in web/). It prints the figures and writes them to
// $PARLEY_ARTIFACTS/web/bench.json.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { artifacts, closeBrowser, isolatedEnv, newPage, parleyBinary, send, shot, startWeb } from "./harness.mjs";

const chunks = Number(process.env.FLOOD ?? 100000);

function terminalFlood() {
  const bin = parleyBinary(); // built before the clock starts
  const t0 = performance.now();
  const out = execFileSync(bin, ["run", `flood ${chunks}`], { env: isolatedEnv(), maxBuffer: 64 << 20 });
  const ms = performance.now() - t0;
  if (!out.toString().includes(`${chunks - 1} `)) throw new Error("parley run lost chunks");
  return ms;
}

async function webFlood() {
  const web = await startWeb();
  try {
    const page = await newPage();
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) window.__longTasks.push(e.duration);
      }).observe({ type: "longtask", buffered: true });
    });
    await page.goto(web.url);
    await page.locator("textarea.input").waitFor();
    const paint = await page.evaluate(() => {
      const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null;
      const ready = performance.getEntriesByName("parley-ready")[0]?.startTime ?? null;
      return { fcp, ready };
    });
    // Again, now that the browser runs and the cookie is set (no redirect through the
    // token address): the paint a user sees when they reload or open the chat again.
    await page.reload();
    await page.locator("textarea.input").waitFor();
    const again = await page.evaluate(() => ({
      fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null,
      ready: performance.getEntriesByName("parley-ready")[0]?.startTime ?? null,
    }));
    paint.reloadFcp = again.fcp;
    // The baseline: the same browser painting a page of one paragraph, from no server.
    await page.goto("data:text/html,<p>baseline</p>");
    await page.waitForFunction(() => performance.getEntriesByName("first-contentful-paint").length > 0);
    paint.baselineFcp = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0].startTime);
    await page.goto(web.origin + "/");
    await page.locator("textarea.input").waitFor();
    paint.reloadReady = again.ready;
    await page.evaluate(() => (window.__longTasks.length = 0));
    const t0 = Date.now();
    await send(page, `flood ${chunks}`);
    await page.waitForFunction((last) => {
      const m = document.querySelectorAll(".msg.agent");
      return m.length && m[m.length - 1].textContent.trimEnd().endsWith(last);
    }, ` ${chunks - 1}`, { timeout: 600_000, polling: 50 });
    const ms = Date.now() - t0;
    // The page followed the reply to its end.
    const atEnd = await page.evaluate(() => {
      const log = document.querySelector("section.conversation:not([hidden]) .log");
      return log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    });
    if (!atEnd) {
      await shot(page, "flood-not-at-end");
      throw new Error(`the page did not follow the reply to its end: ${await page.evaluate(() => {
        const l = document.querySelector("section.conversation:not([hidden]) .log");
        return `scrollHeight ${l.scrollHeight}, scrollTop ${l.scrollTop}, clientHeight ${l.clientHeight}`;
      })}`);
    }
    // While the flood ran, the page kept answering: a key typed shows at once.
    const tasks = await page.evaluate(() => window.__longTasks);
    await shot(page, "flood");
    return { ms, paint, longTasks: tasks.length, longestTask: tasks.length ? Math.max(...tasks) : 0 };
  } finally {
    await web.stop();
  }
}

const terminal = terminalFlood();
const web = await webFlood();
await closeBrowser();
const result = {
  chunks,
  terminalMs: Math.round(terminal),
  webMs: web.ms,
  webOverTerminal: +(web.ms / terminal).toFixed(2),
  longTasksOver50ms: web.longTasks,
  longestTaskMs: Math.round(web.longestTask),
  firstContentfulPaintMs: web.paint.fcp && Math.round(web.paint.fcp),
  readyMs: web.paint.ready && Math.round(web.paint.ready),
  reloadFirstContentfulPaintMs: web.paint.reloadFcp && Math.round(web.paint.reloadFcp),
  reloadReadyMs: web.paint.reloadReady && Math.round(web.paint.reloadReady),
  baselineFirstContentfulPaintMs: Math.round(web.paint.baselineFcp),
};
console.log(JSON.stringify(result, null, 2));
writeFileSync(join(artifacts, "bench.json"), JSON.stringify(result, null, 2) + "\n");
if (result.longestTaskMs > 200) {
  console.error(`the page froze: a task took ${result.longestTaskMs} ms (more than 200)`);
  process.exit(1);
}
