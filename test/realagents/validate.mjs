// Checks the frames a tee recorded between parley (the client) and a real agent with
// test/interop's FrameChecker: every frame parley wrote against the stable ACP v1 schema
// of @agentclientprotocol/sdk, per method, and the rules the schema cannot express.
//
//   node validate.mjs FRAMES.jsonl...   prints one JSON summary per file, in order
//
// Each line of a file is {"dir":"to-agent"|"from-agent","t":ms,"line":"<raw frame>"}.

import { readFileSync } from "node:fs";
import { FrameChecker } from "../interop/peers/lib/frames.mjs";

const out = [];
for (const path of process.argv.slice(2)) {
  const checker = new FrameChecker({ remoteRole: "client" });
  const methods = {};
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
    if (rec.dir === "to-agent") {
      checker.received(rec.line);
      try {
        const msg = JSON.parse(rec.line);
        if (typeof msg.method === "string") methods[msg.method] = (methods[msg.method] ?? 0) + 1;
      } catch {
        // the checker has reported it
      }
    } else {
      let msg;
      try {
        msg = JSON.parse(rec.line);
      } catch {
        continue; // the agent's own garbage is not parley's to answer for
      }
      checker.sent(msg);
    }
  }
  out.push({ path, ...checker.summary(), methods });
}
process.stdout.write(JSON.stringify(out) + "\n");
