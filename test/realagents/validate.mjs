// Checks the frames a tee recorded between parley (the client) and a real agent with
// test/interop's FrameChecker: every frame parley wrote against the stable ACP v1 schema
// of @agentclientprotocol/sdk, per method, and the rules the schema cannot express.
//
//   node validate.mjs FRAMES.jsonl...   prints one JSON summary per file, in order
//
// Each line of a file is {"dir":"to-agent"|"from-agent","t":ms,"line":"<raw frame>"}.

import { readFileSync } from "node:fs";
import { FrameChecker } from "../interop/peers/lib/frames.mjs";

// Legacy requests: removed from ACP (so in neither schema of the SDK) but still the only
// way to reach what some agents offer. parley may send one only when the agent offered
// the legacy feature; its shape is checked here, and it is counted apart.
const LEGACY = {
  // Model choice for agents that return only legacy `models` in session responses.
  "session/set_model": {
    offered: (result) => result?.models != null,
    valid: (p) => typeof p?.sessionId === "string" && typeof p?.modelId === "string",
  },
};
const SESSION_OPENERS = new Set(["session/new", "session/load", "session/resume"]);

const out = [];
for (const path of process.argv.slice(2)) {
  const checker = new FrameChecker({ remoteRole: "client" });
  const methods = {};
  const legacy = {};
  const legacyViolations = [];
  const openers = new Map(); // id of a session/new, load or resume parley sent -> true
  const offered = new Set(); // legacy methods the agent's session responses made available
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    out.push({ path, error: `cannot read: ${err.message}` });
    continue;
  }
  for (const raw of text.split("\n")) {
    if (raw === "") continue;
    const rec = JSON.parse(raw);
    let msg;
    try {
      msg = JSON.parse(rec.line);
    } catch {
      msg = undefined; // the checker reports parley's; the agent's garbage is not parley's
    }
    if (rec.dir === "to-agent") {
      if (typeof msg?.method === "string") methods[msg.method] = (methods[msg.method] ?? 0) + 1;
      if (SESSION_OPENERS.has(msg?.method)) openers.set(JSON.stringify(msg.id), true);
      const l = typeof msg?.method === "string" && "id" in msg ? LEGACY[msg.method] : undefined;
      if (!l) {
        checker.received(rec.line);
        continue;
      }
      legacy[msg.method] = (legacy[msg.method] ?? 0) + 1;
      if (!offered.has(msg.method)) {
        legacyViolations.push({ rule: "legacy", message: `${msg.method} sent, but the agent never offered it`, frame: rec.line.slice(0, 400) });
      } else if (!l.valid(msg.params)) {
        legacyViolations.push({ rule: "legacy", message: `${msg.method}: malformed params`, frame: rec.line.slice(0, 400) });
      }
    } else if (msg !== undefined) {
      if (!("method" in msg) && openers.has(JSON.stringify(msg.id))) {
        for (const [method, l] of Object.entries(LEGACY)) if (l.offered(msg.result)) offered.add(method);
      }
      checker.sent(msg);
    }
  }
  const summary = checker.summary();
  summary.violations.push(...legacyViolations);
  summary.violationCount += legacyViolations.length;
  out.push({ path, ...summary, methods, legacy });
}
process.stdout.write(JSON.stringify(out) + "\n");
