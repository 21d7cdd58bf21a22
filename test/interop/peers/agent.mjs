#!/usr/bin/env node
// A scripted ACP agent on @agentclientprotocol/sdk, run on stdio by the client
// under test (`parley run --agent-command "node peers/agent.mjs ..."`).
//
// Prompt commands (the prompt's text, trimmed):
//   flood N            N agent_message_chunks ("1\n", "2\n", ... "N\n"), then end_turn
//   echo TEXT          TEXT streamed back exactly, in a few chunks
//   slowly TEXT        one chunk per word, 20 ms apart; honours session/cancel
//   permission         session/request_permission offering the four option kinds in
//                      shuffled order under opaque ids; replies "permission: <kind>"
//                      or "permission: cancelled"
//   unknown-kind       an unknown sessionUpdate kind between two chunks that carry
//                      unknown fields and _meta; the text is
//                      "before unknown kind. after unknown kind."
//   fs [PATH]          fs/read_text_file of PATH (relative to the session cwd;
//                      default hello.txt) when the client advertised it
//   anything else      "You said: TEXT"
// Every turn honours session/cancel with stopReason "cancelled".
//
// Flags:
//   --mode M[,M]            updates-before-response: send available_commands_update and
//                           session_info_update for the new session before answering
//                           session/new. Also read from $PARLEY_PEER_MODE.
//   --flood-default N       treat a prompt that is no command as "flood N"
//   --summary FILE          write a JSON summary (client info, turns, violations) to FILE,
//                           rewritten as things happen. Also $PARLEY_PEER_SUMMARY.
//   --record FILE           record every frame in both directions as JSON lines
//   --no-validate           skip frame checks (benchmarks)

import { randomUUID } from "node:crypto";
import { isAbsolute, join } from "node:path";
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError } from "@agentclientprotocol/sdk";
import { parseFlags, writeJSONAtomically } from "./lib/cli.mjs";
import { checkedIO, FrameChecker, FrameRecorder } from "./lib/frames.mjs";

const flags = parseFlags(process.argv.slice(2), {
  mode: "list",
  "flood-default": "string",
  summary: "string",
  record: "string",
  "no-validate": "bool",
});
const modes = new Set(
  [...flags.mode, process.env.PARLEY_PEER_MODE ?? ""]
    .flatMap((m) => m.split(","))
    .map((m) => m.trim())
    .filter(Boolean),
);
for (const m of modes) {
  if (m !== "updates-before-response") throw new Error(`unknown --mode ${m}`);
}
const floodDefault = flags["flood-default"] === undefined ? 0 : Number(flags["flood-default"]);
const summaryPath = flags.summary ?? process.env.PARLEY_PEER_SUMMARY;

const PERMISSION_KINDS = ["allow_once", "allow_always", "reject_once", "reject_always"];

const state = {
  peer: "agent",
  modes: [...modes],
  protocolVersion: undefined,
  clientInfo: undefined,
  clientCapabilities: undefined,
  sessions: [],
  turns: [],
  cancels: 0,
};
const sessions = new Map(); // sessionId -> {cwd, turn: AbortController | undefined, cancelled: boolean}

let summaryDirty = false;
function writeSummary() {
  summaryDirty = false;
  if (!summaryPath) return;
  writeJSONAtomically(summaryPath, { ...state, ...checker.summary() });
}
function scheduleSummary() {
  if (summaryDirty) return;
  summaryDirty = true;
  setImmediate(writeSummary);
}

const checker = new FrameChecker({ remoteRole: "client", validate: !flags["no-validate"], onViolation: scheduleSummary });
const recorder = new FrameRecorder(flags.record);
const io = checkedIO(process.stdin, process.stdout, {
  onLine: (line) => {
    recorder.record("in", line);
    checker.received(line);
  },
  onMessage: (msg) => {
    recorder.record("out", msg);
    checker.sent(msg);
  },
});

function update(client, sessionId, u) {
  return client.notify(methods.client.session.update, { sessionId, update: u });
}

function say(client, sessionId, text) {
  return update(client, sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

function shuffled(items) {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// Splits text into about n pieces on code point boundaries, so the pieces
// concatenate back to exactly the input.
function pieces(text, n) {
  const points = Array.from(text);
  const size = Math.max(1, Math.ceil(points.length / n));
  const out = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""));
  return out;
}

async function flood(client, sessionId, n, signal) {
  for (let i = 1; i <= n; i++) {
    if (signal.aborted) return;
    await say(client, sessionId, `${i}\n`);
  }
}

async function askPermission(client, sessionId, turn) {
  const toolCallId = `deploy-${randomUUID().slice(0, 8)}`;
  await update(client, sessionId, {
    sessionUpdate: "tool_call",
    toolCallId,
    title: "Deploy to production",
    kind: "execute",
    status: "pending",
    rawInput: { command: "deploy", target: "production" },
  });
  const kinds = shuffled(PERMISSION_KINDS);
  const options = kinds.map((kind, i) => ({ optionId: `choice-${"abcd"[i]}`, name: kind.replace("_", " "), kind }));
  turn.permission = { offered: kinds };
  const response = await client.request(methods.client.session.requestPermission, {
    sessionId,
    toolCall: { toolCallId, title: "Deploy to production", kind: "execute", status: "pending" },
    options,
  });
  const outcome = response.outcome;
  let chosen;
  if (outcome.outcome === "cancelled") chosen = "cancelled";
  else chosen = options.find((o) => o.optionId === outcome.optionId)?.kind ?? `unoffered option ${outcome.optionId}`;
  turn.permission.chosen = chosen;
  const allowed = chosen === "allow_once" || chosen === "allow_always";
  await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: allowed ? "completed" : "failed" });
  await say(client, sessionId, `permission: ${chosen}`);
}

async function unknownKind(client, sessionId) {
  await client.notify(methods.client.session.update, {
    sessionId,
    _meta: { "parley.test/params": true },
    update: {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "before unknown kind. ", futureContentField: [1, 2, 3] },
      futureUpdateField: { nested: "value" },
      _meta: { "parley.test/update": { n: 1 } },
    },
  });
  await client.notify(methods.client.session.update, {
    sessionId,
    update: {
      sessionUpdate: "future_widget_update",
      widgetId: "w-1",
      payload: { shape: "hexagon", sides: 6 },
      _meta: { "parley.test/unknown": true },
    },
  });
  await say(client, sessionId, "after unknown kind.");
}

async function readFile(client, sessionId, cwd, arg, turn) {
  const path = arg ? (isAbsolute(arg) ? arg : join(cwd, arg)) : join(cwd, "hello.txt");
  if (!state.clientCapabilities?.fs?.readTextFile) {
    turn.fs = "not advertised";
    await say(client, sessionId, "fs: client did not advertise fs.readTextFile");
    return;
  }
  try {
    const { content } = await client.request(methods.client.fs.readTextFile, { sessionId, path });
    turn.fs = { path, chars: content.length };
    await say(client, sessionId, `fs: read ${content.length} chars from ${path}`);
  } catch (err) {
    turn.fs = { path, error: err.message };
    await say(client, sessionId, `fs: error ${err.message}`);
  }
}

async function runTurn(client, sessionId, text, signal, turn) {
  const session = sessions.get(sessionId);
  const [command, ...rest] = text.split(/\s+/);
  const arg = text.slice(command.length).trim();
  switch (command) {
    case "flood":
      return flood(client, sessionId, Number(rest[0] ?? 0), signal);
    case "echo":
      for (const piece of pieces(arg, 4)) await say(client, sessionId, piece);
      return;
    case "slowly": {
      const words = arg.split(/\s+/).filter(Boolean);
      for (let i = 0; i < words.length && !signal.aborted; i++) {
        if (i > 0) await sleep(20, signal);
        if (signal.aborted) return;
        await say(client, sessionId, i < words.length - 1 ? `${words[i]} ` : words[i]);
      }
      return;
    }
    case "permission":
      return askPermission(client, sessionId, turn);
    case "unknown-kind":
      return unknownKind(client, sessionId);
    case "fs":
      return readFile(client, sessionId, session.cwd, arg, turn);
    default:
      if (floodDefault > 0) return flood(client, sessionId, floodDefault, signal);
      await say(client, sessionId, `You said: ${text}`);
  }
}

const app = agent({ name: "parley-interop-agent" })
  .onRequest(methods.agent.initialize, ({ params }) => {
    state.protocolVersion = params.protocolVersion;
    state.clientInfo = params.clientInfo;
    state.clientCapabilities = params.clientCapabilities;
    scheduleSummary();
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false, promptCapabilities: {} },
      agentInfo: { name: "parley-interop-agent", version: "0.0.0" },
      authMethods: [],
    };
  })
  .onRequest(methods.agent.session.new, async ({ params, client }) => {
    const sessionId = `sess-${randomUUID()}`;
    sessions.set(sessionId, { cwd: params.cwd, turn: undefined });
    state.sessions.push({ sessionId, cwd: params.cwd, mcpServers: params.mcpServers.length });
    scheduleSummary();
    if (modes.has("updates-before-response")) {
      // Deliberately early: clients must buffer updates for a session id
      // they have not seen yet (acp-v1.md §14.3).
      await update(client, sessionId, {
        sessionUpdate: "available_commands_update",
        availableCommands: [
          { name: "flood", description: "Send N chunks", input: { hint: "N" } },
          { name: "echo", description: "Echo text back", input: { hint: "text" } },
        ],
      });
      await update(client, sessionId, { sessionUpdate: "session_info_update", title: "interop agent session" });
    }
    return { sessionId };
  })
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (!session) throw RequestError.sessionNotFound(params.sessionId);
    const text = params.prompt
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("")
      .trim();
    const controller = new AbortController();
    session.turn = controller;
    const turn = { sessionId: params.sessionId, prompt: text.length > 200 ? text.slice(0, 200) + "…" : text };
    state.turns.push(turn);
    const started = performance.now();
    try {
      await runTurn(client, params.sessionId, text, controller.signal, turn);
    } finally {
      session.turn = undefined;
    }
    turn.stopReason = controller.signal.aborted ? "cancelled" : "end_turn";
    turn.elapsedMs = Math.round(performance.now() - started);
    // Written now, not later: a client may kill the agent as soon as it has
    // the response.
    writeSummary();
    return { stopReason: turn.stopReason };
  })
  .onNotification(methods.agent.session.cancel, ({ params }) => {
    state.cancels++;
    sessions.get(params.sessionId)?.turn?.abort();
  });

const connection = app.connect(io.wrap(ndJsonStream(io.output, io.input)));

function finish(code) {
  writeSummary();
  process.exit(code);
}
process.on("SIGTERM", () => finish(0));
process.on("SIGINT", () => finish(0));
await connection.closed;
finish(0);
