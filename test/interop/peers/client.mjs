#!/usr/bin/env node
// A scripted ACP client on @agentclientprotocol/sdk. It spawns an agent
// (`parley eliza`, or peers/agent.mjs), runs prompts against it, checks every
// frame the agent writes, and prints a JSON summary on stdout.
//
// Usage:
//   node peers/client.mjs --agent "CMD ARGS..." [options]
//
// What to run (one of):
//   --prompt TEXT        a prompt in one session; repeat for more turns
//   --script FILE        a JSON array of steps, each one of
//                          {"op":"new","session":"a"}
//                          {"op":"prompt","session":"a","text":"...",
//                           "permission":"reject_once","cancelAfterFirstChunk":true}
//                          {"op":"load","session":"a"}      session/load of a's id
//                          {"op":"close","session":"a"}     session/close
//                        a prompt for a session alias not yet created opens it first
//   --flood N            prompt "flood N"; the summary's "flood" reports the
//                        chunk count and the rate from prompt sent to response
// Options:
//   --cwd DIR            session cwd (default: a fresh temp dir)
//   --permission KIND    answer session/request_permission with the offered option of
//                        this kind (allow_once, allow_always, reject_once,
//                        reject_always) or "cancelled"; default allow_once
//   --cancel-after-first-chunk   send session/cancel after a turn's first agent chunk
//   --fs, --terminal     advertise fs (read/write, served from disk) / terminal
//   --parley             ask for parley's own notifications (clientCapabilities._meta.parley)
//   --record FILE        record every frame in both directions as JSON lines
//   --summary FILE       also write the summary to FILE
//   --strict             exit 1 when the agent's frames broke any rule
//   --no-validate        skip frame checks (benchmarks)
//   --timeout MS         give up after MS milliseconds (default 60000)
//
// Summary: per step, the stop reason, the text of agent_message_chunk,
// user_message_chunk (load replay) and agent_thought_chunk updates, counts per
// sessionUpdate kind and timings; session-level kinds (available commands,
// mode, config options, session info, usage) are counted under
// sessions.<alias>.setup; "notifications" lists the methods of every other
// notification the agent sent (its extensions), in order; "violations" lists
// frames that broke the rules.
//
// Exit status: 0 on success, 1 when a step failed (or --strict and violations),
// 2 on timeout.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { parseFlags, splitCommand, writeJSONAtomically } from "./lib/cli.mjs";
import { checkedIO, FrameChecker, FrameRecorder } from "./lib/frames.mjs";

const PERMISSION_ANSWERS = new Set(["allow_once", "allow_always", "reject_once", "reject_always", "cancelled"]);
const STDERR_TAIL_BYTES = 4096;

const flags = parseFlags(process.argv.slice(2), {
  agent: "string",
  cwd: "string",
  prompt: "list",
  script: "string",
  flood: "string",
  permission: "string",
  "cancel-after-first-chunk": "bool",
  fs: "bool",
  terminal: "bool",
  parley: "bool",
  record: "string",
  summary: "string",
  strict: "bool",
  "no-validate": "bool",
  timeout: "string",
});
if (!flags.agent) throw new Error("--agent is required");
const defaultPermission = flags.permission ?? "allow_once";
if (!PERMISSION_ANSWERS.has(defaultPermission)) throw new Error(`bad --permission ${defaultPermission}`);

function planSteps() {
  if (flags.script) return JSON.parse(readFileSync(flags.script, "utf8"));
  if (flags.flood) return [{ op: "prompt", session: "main", text: `flood ${Number(flags.flood)}`, flood: Number(flags.flood) }];
  if (flags.prompt.length === 0) throw new Error("one of --prompt, --script or --flood is required");
  return flags.prompt.map((text) => ({ op: "prompt", session: "main", text }));
}
const steps = planSteps();
const cwd = flags.cwd ?? mkdtempSync(join(tmpdir(), "parley-interop-"));

const summary = {
  peer: "client",
  agentCommand: flags.agent,
  cwd,
  ok: false,
  agentInfo: undefined,
  agentCapabilities: undefined,
  protocolVersion: undefined,
  initializeMs: undefined,
  sessions: {},
  steps: [],
  orphanUpdates: 0,
  notifications: [],
  unsupported: [],
  agentExit: undefined,
  agentStderr: "",
};

// The agent process.
const [command, ...args] = splitCommand(flags.agent);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
const childExited = new Promise((resolve) => {
  child.on("exit", (code, signal) => {
    summary.agentExit = signal ? { signal } : { code };
    resolve();
  });
  child.on("error", (err) => {
    summary.agentExit = { error: err.message };
    resolve();
  });
});
child.stderr.on("data", (data) => {
  summary.agentStderr = (summary.agentStderr + data.toString("utf8")).slice(-STDERR_TAIL_BYTES);
});
child.stdin.on("error", () => {}); // the agent may exit first; the SDK reports the closed stream

// Compiling the schema takes a few hundred milliseconds: do it while the
// agent starts.
const checker = new FrameChecker({ remoteRole: "agent", validate: !flags["no-validate"] });
const recorder = new FrameRecorder(flags.record);

function emit(code) {
  summary.ok = code === 0;
  const out = { ...summary, ...checker.summary() };
  if (flags.summary) writeJSONAtomically(flags.summary, out);
  process.stdout.write(JSON.stringify(out, null, 2) + "\n", () => process.exit(code));
}

const timeoutMs = Number(flags.timeout ?? 60000);
setTimeout(() => {
  summary.error = `timed out after ${timeoutMs} ms`;
  child.kill("SIGKILL");
  emit(2);
}, timeoutMs).unref();

// Routing of updates: each session id points at the record (turn or load)
// that is currently collecting its updates.
const collecting = new Map();
const setupRecords = new Map();

function newRecord(fields) {
  return { ...fields, updates: {}, chunks: 0, text: "", userText: "", thoughtText: "" };
}

// Kinds that describe the session rather than a turn are counted in the
// session's setup record: the SDK may run their handler after the next
// turn's record is in place, so routing them by time would be a race.
const SETUP_KINDS = new Set(["available_commands_update", "current_mode_update", "config_option_update", "session_info_update", "usage_update"]);

function onUpdate({ params, agent: agentCtx }) {
  const u = params.update;
  const kind = u.sessionUpdate;
  const record = SETUP_KINDS.has(kind) ? setupRecords.get(params.sessionId) : collecting.get(params.sessionId);
  if (!record) {
    summary.orphanUpdates++;
    return;
  }
  record.updates[kind] = (record.updates[kind] ?? 0) + 1;
  const text = u.content?.type === "text" ? u.content.text : "";
  if (kind === "agent_message_chunk") {
    record.chunks++;
    // A flood is checked by count; keeping 100,000 chunks of text is no use.
    if (!record.flood) record.text += text;
    else record.textBytes = (record.textBytes ?? 0) + Buffer.byteLength(text);
    if (record.firstChunkMs === undefined) record.firstChunkMs = round(performance.now() - record.started);
    if (record.cancelAfterFirstChunk && !record.cancelSent) {
      record.cancelSent = true;
      record.cancelSentMs = round(performance.now() - record.started);
      void agentCtx.notify(methods.agent.session.cancel, { sessionId: params.sessionId });
    }
  } else if (kind === "user_message_chunk") record.userText += text;
  else if (kind === "agent_thought_chunk") record.thoughtText += text;
}

function onPermission({ params }) {
  const record = collecting.get(params.sessionId);
  const want = record?.permission ?? defaultPermission;
  const offered = params.options.map((o) => o.kind);
  const entry = { title: params.toolCall?.title, kind: params.toolCall?.kind, offered, want };
  if (record) (record.permissions ??= []).push(entry);
  if (want === "cancelled" || record?.cancelSent) {
    entry.answered = "cancelled";
    return { outcome: { outcome: "cancelled" } };
  }
  const option = params.options.find((o) => o.kind === want);
  if (!option) {
    // No option of the wanted kind: cancelling is the only answer that
    // neither invents an id nor grants something nobody chose.
    entry.answered = "cancelled";
    entry.missing = true;
    return { outcome: { outcome: "cancelled" } };
  }
  entry.answered = option.kind;
  entry.optionId = option.optionId;
  return { outcome: { outcome: "selected", optionId: option.optionId } };
}

function round(ms) {
  return Math.round(ms * 1000) / 1000;
}

async function openSession(ctx, alias) {
  const started = performance.now();
  const response = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
  summary.sessions[alias] = { sessionId: response.sessionId, newMs: round(performance.now() - started) };
  const setup = newRecord({ op: "setup", session: alias });
  setupRecords.set(response.sessionId, setup);
  collecting.set(response.sessionId, setup);
  summary.sessions[alias].setup = setup;
  return response.sessionId;
}

async function runStep(ctx, step) {
  const alias = step.session ?? "main";
  const known = summary.sessions[alias]?.sessionId;
  switch (step.op) {
    case "new":
      await openSession(ctx, alias);
      return undefined;
    case "prompt": {
      const sessionId = known ?? (await openSession(ctx, alias));
      const record = newRecord({
        op: "prompt",
        session: alias,
        prompt: step.text,
        permission: step.permission,
        cancelAfterFirstChunk: step.cancelAfterFirstChunk ?? flags["cancel-after-first-chunk"] ?? false,
        flood: step.flood,
      });
      collecting.set(sessionId, record);
      record.started = performance.now();
      const response = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: step.text }],
      });
      record.elapsedMs = round(performance.now() - record.started);
      record.stopReason = response.stopReason;
      record.chunksAtResponse = record.chunks;
      return record;
    }
    case "load": {
      if (!summary.agentCapabilities?.loadSession) throw new Error("agent did not advertise loadSession");
      if (!known) throw new Error(`no session ${alias} to load`);
      const record = newRecord({ op: "load", session: alias });
      collecting.set(known, record);
      record.started = performance.now();
      await ctx.request(methods.agent.session.load, { sessionId: known, cwd, mcpServers: [] });
      record.elapsedMs = round(performance.now() - record.started);
      record.chunksAtResponse = record.chunks;
      return record;
    }
    case "close": {
      if (!summary.agentCapabilities?.sessionCapabilities?.close) throw new Error("agent did not advertise sessionCapabilities.close");
      if (!known) throw new Error(`no session ${alias} to close`);
      const record = newRecord({ op: "close", session: alias });
      collecting.set(known, record);
      record.started = performance.now();
      await ctx.request(methods.agent.session.close, { sessionId: known });
      record.elapsedMs = round(performance.now() - record.started);
      return record;
    }
    default:
      throw new Error(`unknown step op ${JSON.stringify(step.op)}`);
  }
}

const io = checkedIO(child.stdout, child.stdin, {
  onLine: (line) => {
    recorder.record("in", line);
    checker.received(line);
  },
  onMessage: (msg) => {
    recorder.record("out", msg);
    checker.sent(msg);
  },
});

let app = client({ name: "parley-interop-client" })
  .onRequest(methods.client.session.requestPermission, onPermission)
  .onNotification(methods.client.session.update, onUpdate)
  .onNotification("*", ({ method }) => void summary.notifications.push(method));
if (flags.fs) {
  app = app
    .onRequest(methods.client.fs.readTextFile, ({ params }) => {
      const lines = readFileSync(params.path, "utf8").split("\n");
      const from = (params.line ?? 1) - 1;
      const to = params.limit ? from + params.limit : lines.length;
      return { content: lines.slice(from, to).join("\n") };
    })
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      writeFileSync(params.path, params.content);
      return {};
    });
}

let failed = false;
try {
  await app.connectWith(io.wrap(ndJsonStream(io.output, io.input)), async (ctx) => {
    const started = performance.now();
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: !!flags.fs, writeTextFile: !!flags.fs },
        terminal: !!flags.terminal,
        ...(flags.parley ? { _meta: { parley: {} } } : {}),
      },
      clientInfo: { name: "parley-interop-client", version: "0.0.0" },
    });
    summary.initializeMs = round(performance.now() - started);
    summary.protocolVersion = init.protocolVersion;
    summary.agentInfo = init.agentInfo;
    summary.agentCapabilities = init.agentCapabilities;
    for (const step of steps) {
      try {
        const record = await runStep(ctx, step);
        if (record) {
          delete record.started;
          summary.steps.push(record);
        }
      } catch (err) {
        failed = true;
        summary.steps.push({ op: step.op, session: step.session, prompt: step.text, error: err.message ?? String(err) });
      }
    }
  });
} catch (err) {
  failed = true;
  summary.error = err.message ?? String(err);
}

const flood = summary.steps.find((s) => s.flood);
if (flood) {
  summary.flood = {
    n: flood.flood,
    chunks: flood.chunks,
    chunksAtResponse: flood.chunksAtResponse,
    lossless: flood.chunks === flood.flood,
    elapsedMs: flood.elapsedMs,
    perSecond: flood.elapsedMs > 0 ? Math.round(flood.chunks / (flood.elapsedMs / 1000)) : undefined,
  };
}

// Let the agent see end of input and exit on its own; then make sure.
child.stdin.end();
const exitWait = setTimeout(() => child.kill("SIGKILL"), 2000);
await childExited;
clearTimeout(exitWait);

if (flags.strict && checker.violationCount > 0) failed = true;
emit(failed ? 1 : 0);
