// Frame checking for the peers: every line parley writes is parsed here,
// before the SDK sees it, and checked against the JSON-RPC envelope, the
// stable ACP v1 schema shipped in @agentclientprotocol/sdk (per method, via
// the x-method and x-side annotations on its $defs), and the rules the schema
// cannot express (nested fs capabilities, ordering of updates and responses).

import { createRequire } from "node:module";
import { Readable, Writable } from "node:stream";
import { appendFileSync, writeFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);

// Updates that set up or describe a session rather than belong to a turn.
// They may arrive between turns; everything else must come inside a turn.
const SETUP_UPDATES = new Set([
  "available_commands_update",
  "current_mode_update",
  "config_option_update",
  "session_info_update",
  "usage_update",
]);

// Methods a side may call only when the other side advertised them
// (acp-v1.md §2, §3): the predicate gets the other side's capabilities.
const CLIENT_METHOD_GATES = {
  "fs/read_text_file": (c) => c.fs?.readTextFile === true,
  "fs/write_text_file": (c) => c.fs?.writeTextFile === true,
  "terminal/create": (c) => c.terminal === true,
  "terminal/output": (c) => c.terminal === true,
  "terminal/wait_for_exit": (c) => c.terminal === true,
  "terminal/kill": (c) => c.terminal === true,
  "terminal/release": (c) => c.terminal === true,
};
const AGENT_METHOD_GATES = {
  "session/load": (c) => c.loadSession === true,
  "session/list": (c) => c.sessionCapabilities?.list != null,
  "session/delete": (c) => c.sessionCapabilities?.delete != null,
  "session/resume": (c) => c.sessionCapabilities?.resume != null,
  "session/close": (c) => c.sessionCapabilities?.close != null,
};

const ENVELOPE_KEYS = new Set(["jsonrpc", "id", "method", "params", "result", "error"]);
const MAX_DETAILED_VIOLATIONS = 50;
const MAX_FRAME_EXCERPT = 400;

let compiled; // { validators: Map<key, fn>, error: fn }, shared by every checker

// The schema's own integer formats; ajv-formats knows none of them.
const INTEGER_FORMATS = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint16: [0, 65535],
  uint32: [0, 2 ** 32 - 1],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

function compileSchema() {
  if (compiled) return compiled;
  const schema = require("@agentclientprotocol/sdk/schema/v1/schema.json");
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  for (const [name, [min, max]] of Object.entries(INTEGER_FORMATS)) {
    ajv.addFormat(name, { type: "number", validate: (n) => Number.isInteger(n) && n >= min && n <= max });
  }
  ajv.addFormat("double", { type: "number", validate: (n) => Number.isFinite(n) });
  // Only the $defs are used; the root's anyOf over every message would be
  // compiled along with the first definition and double the startup cost.
  const { anyOf: _root, ...defsOnly } = schema;
  ajv.addSchema(defsOnly, "acp");
  const validators = new Map();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def["x-method"];
    if (!method) continue;
    const kind = name.endsWith("Response") ? "response" : name.endsWith("Notification") ? "notification" : "request";
    const key = `${def["x-side"]}:${kind}:${method}`;
    validators.set(key, { name, validate: ajv.getSchema(`acp#/$defs/${name}`) });
  }
  compiled = { validators, error: { name: "Error", validate: ajv.getSchema("acp#/$defs/Error") } };
  return compiled;
}

function excerpt(line) {
  return line.length > MAX_FRAME_EXCERPT ? line.slice(0, MAX_FRAME_EXCERPT) + "…" : line;
}

function describeErrors(errors) {
  return (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || "/"} ${e.message}${e.params && e.keyword === "const" ? ` (${JSON.stringify(e.params.allowedValue)})` : ""}`)
    .join("; ");
}

function idKey(id) {
  return `${typeof id}:${JSON.stringify(id)}`;
}

// FrameChecker checks what the remote side (parley) sends. remoteRole is the
// ACP role of the remote side: "agent" when the peer is a client driving
// `parley eliza`, "client" when the peer is an agent driven by `parley run`.
export class FrameChecker {
  constructor({ remoteRole, validate = true, onViolation } = {}) {
    if (remoteRole !== "agent" && remoteRole !== "client") throw new Error(`bad remoteRole ${remoteRole}`);
    this.remoteRole = remoteRole;
    this.enabled = validate;
    this.onViolation = onViolation;
    // Requests the remote handles carry x-side = its role; requests it sends
    // are handled by us, so they carry our role.
    this.ourRole = remoteRole === "agent" ? "client" : "agent";
    this.schema = validate ? compileSchema() : undefined;
    this.violations = [];
    this.violationCount = 0;
    this.framesIn = 0;
    this.framesOut = 0;
    this.sentRequests = new Map(); // idKey -> {method, params}
    this.remoteRequests = new Map(); // idKey -> {method, params} of requests from the remote still unanswered
    this.sessions = new Map(); // sessionId -> {prompts: number in flight, loads: number in flight}
    this.sawInitialize = false;
    this.ourCapabilities = {}; // what this peer advertised in initialize
  }

  violation(rule, message, line) {
    this.violationCount++;
    if (this.violations.length < MAX_DETAILED_VIOLATIONS) {
      this.violations.push({ index: this.framesIn, rule, message, frame: line === undefined ? undefined : excerpt(line) });
    }
    this.onViolation?.();
  }

  session(id) {
    let s = this.sessions.get(id);
    if (!s) {
      s = { prompts: 0, loads: 0 };
      this.sessions.set(id, s);
    }
    return s;
  }

  // sent records a message this peer wrote, so that responses and ordering
  // can be checked against it.
  sent(msg) {
    this.framesOut++;
    if (!this.enabled || msg === null || typeof msg !== "object") return;
    if (typeof msg.method === "string" && "id" in msg) {
      this.sentRequests.set(idKey(msg.id), { method: msg.method, params: msg.params });
      if (msg.method === "initialize") this.ourCapabilities = msg.params?.clientCapabilities ?? {};
      const sid = msg.params?.sessionId;
      if (msg.method === "session/prompt" && typeof sid === "string") this.session(sid).prompts++;
      if (msg.method === "session/load" && typeof sid === "string") this.session(sid).loads++;
    } else if (!("method" in msg) && "id" in msg) {
      const key = idKey(msg.id);
      const request = this.remoteRequests.get(key);
      this.remoteRequests.delete(key);
      // Sessions this peer opened as an agent become known once the
      // response that introduces them is written.
      if (request?.method === "session/new" && typeof msg.result?.sessionId === "string") this.session(msg.result.sessionId);
      if (request?.method === "initialize") this.ourCapabilities = msg.result?.agentCapabilities ?? {};
    }
  }

  // received checks one raw line written by the remote side.
  received(line) {
    this.framesIn++;
    if (!this.enabled) return;
    if (line.trim() === "") return; // tolerated on read; not worth a violation
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (err) {
      this.violation("json", `not JSON: ${err.message}`, line);
      return;
    }
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      this.violation("envelope", "a frame must be a JSON object (no batches)", line);
      return;
    }
    if (msg.jsonrpc !== "2.0") this.violation("envelope", `jsonrpc must be "2.0", got ${JSON.stringify(msg.jsonrpc)}`, line);
    for (const key of Object.keys(msg)) {
      if (!ENVELOPE_KEYS.has(key)) this.violation("envelope", `unexpected top-level member ${JSON.stringify(key)}`, line);
    }
    if ("method" in msg) {
      if (typeof msg.method !== "string") {
        this.violation("envelope", "method must be a string", line);
        return;
      }
      if ("result" in msg || "error" in msg) this.violation("envelope", "a request or notification must not carry result or error", line);
      if ("id" in msg) this.checkRequest(msg, line);
      else this.checkNotification(msg, line);
    } else if ("id" in msg) {
      this.checkResponse(msg, line);
    } else {
      this.violation("envelope", "neither a request, a notification nor a response", line);
    }
  }

  validateParams(side, kind, msg, line) {
    if (msg.method.startsWith("_")) return; // extension methods have no schema
    const entry = this.schema.validators.get(`${side}:${kind}:${msg.method}`);
    if (!entry) {
      this.violation("method", `${msg.method} is not a ${kind} the ${this.remoteRole} may send in the stable v1 schema`, line);
      return;
    }
    const params = "params" in msg ? msg.params : {};
    if (!entry.validate(params)) this.violation("schema", `${entry.name}: ${describeErrors(entry.validate.errors)}`, line);
  }

  checkRequest(msg, line) {
    const { id } = msg;
    if (!(typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) || id === null)) {
      this.violation("envelope", `request id must be a string, number or null, got ${JSON.stringify(id)}`, line);
    }
    const key = idKey(id);
    if (this.remoteRequests.has(key)) this.violation("envelope", `request id ${JSON.stringify(id)} reused while still pending`, line);
    this.remoteRequests.set(key, { method: msg.method, params: msg.params });
    this.validateParams(this.ourRole, "request", msg, line);
    if (this.remoteRole === "client") this.checkClientRequest(msg, line);
    else this.checkAgentRequest(msg, line);
  }

  checkNotification(msg, line) {
    if (msg.method.startsWith("$/")) {
      this.validateParams("protocol", "notification", msg, line);
      return;
    }
    this.validateParams(this.ourRole, "notification", msg, line);
    if (this.remoteRole === "agent" && msg.method === "session/update") this.checkUpdateOrder(msg, line);
    if (this.remoteRole === "client" && msg.method === "session/cancel") {
      const sid = msg.params?.sessionId;
      if (!this.sessions.has(sid)) this.violation("order", `session/cancel for unknown session ${JSON.stringify(sid)}`, line);
    }
  }

  checkResponse(msg, line) {
    const key = idKey(msg.id);
    const request = this.sentRequests.get(key);
    if (!request) {
      this.violation("envelope", `response id ${JSON.stringify(msg.id)} (${typeof msg.id}) matches no request this peer sent`, line);
      return;
    }
    this.sentRequests.delete(key);
    const hasResult = "result" in msg;
    const hasError = "error" in msg;
    if (hasResult === hasError) {
      this.violation("envelope", "a response must carry exactly one of result and error", line);
      return;
    }
    const sid = request.params?.sessionId;
    if (request.method === "session/prompt" && typeof sid === "string") this.session(sid).prompts--;
    if (request.method === "session/load" && typeof sid === "string") this.session(sid).loads--;
    if (hasError) {
      if (!this.schema.error.validate(msg.error)) this.violation("schema", `Error: ${describeErrors(this.schema.error.validate.errors)}`, line);
      return;
    }
    this.validateParams(this.remoteRole, "response", { method: request.method, params: msg.result }, line);
    if (request.method === "session/new" && typeof msg.result?.sessionId === "string") {
      this.session(msg.result.sessionId);
    }
    if (request.method === "initialize" && msg.result?.protocolVersion !== 1) {
      this.violation("version", `initialize answered protocolVersion ${JSON.stringify(msg.result?.protocolVersion)}, this peer asked for 1`, line);
    }
    if (request.method === "session/request_permission") this.checkPermissionOutcome(request.params, msg.result, line);
  }

  // Rules for frames from parley as a client.
  checkClientRequest(msg, line) {
    if (!this.sawInitialize && msg.method !== "initialize") {
      this.violation("order", `${msg.method} sent before initialize`, line);
    }
    if (msg.method === "session/load" && typeof msg.params?.sessionId === "string") this.session(msg.params.sessionId);
    if (msg.method === "initialize") {
      this.sawInitialize = true;
      const caps = msg.params?.clientCapabilities ?? {};
      for (const flat of ["readTextFile", "writeTextFile"]) {
        if (flat in caps) this.violation("capabilities", `clientCapabilities.${flat} must be nested under clientCapabilities.fs`, line);
      }
      if (msg.params?.protocolVersion !== 1) this.violation("version", `initialize asked for protocolVersion ${JSON.stringify(msg.params?.protocolVersion)}, want 1`, line);
    }
    const gate = AGENT_METHOD_GATES[msg.method];
    if (gate && !gate(this.ourCapabilities)) this.violation("capabilities", `${msg.method} called, but this agent did not advertise it`, line);
    if (["session/prompt", "session/close", "session/set_mode", "session/set_config_option"].includes(msg.method)) {
      const sid = msg.params?.sessionId;
      if (!this.sessions.has(sid)) this.violation("order", `${msg.method} for unknown session ${JSON.stringify(sid)}`, line);
    }
  }

  // Rules for requests from parley as an agent.
  checkAgentRequest(msg, line) {
    const gate = CLIENT_METHOD_GATES[msg.method];
    if (gate && !gate(this.ourCapabilities)) this.violation("capabilities", `${msg.method} called, but this client did not advertise it`, line);
    const sid = msg.params?.sessionId;
    if (sid !== undefined && !this.sessions.has(sid)) {
      this.violation("order", `${msg.method} for session ${JSON.stringify(sid)} before its session/new response`, line);
    } else if (msg.method === "session/request_permission" && this.sessions.get(sid).prompts <= 0) {
      this.violation("order", "session/request_permission outside a prompt turn", line);
    }
  }

  checkUpdateOrder(msg, line) {
    const sid = msg.params?.sessionId;
    const kind = msg.params?.update?.sessionUpdate;
    const s = this.sessions.get(sid);
    if (!s) {
      this.violation("order", `session/update (${kind}) for session ${JSON.stringify(sid)} before its session/new response`, line);
      return;
    }
    if (s.prompts <= 0 && s.loads <= 0 && !SETUP_UPDATES.has(kind)) {
      this.violation("order", `session/update (${kind}) outside a prompt turn: after the session/prompt response or before any prompt`, line);
    }
  }

  checkPermissionOutcome(requestParams, result, line) {
    const outcome = result?.outcome;
    if (outcome?.outcome !== "selected") return;
    const offered = (requestParams?.options ?? []).map((o) => o.optionId);
    if (!offered.includes(outcome.optionId)) {
      this.violation("permission", `selected optionId ${JSON.stringify(outcome.optionId)} was not offered (${offered.join(", ")})`, line);
    }
  }

  summary() {
    return { framesIn: this.framesIn, framesOut: this.framesOut, violationCount: this.violationCount, violations: this.violations };
  }
}

// FrameRecorder writes every frame in both directions as one JSON line each:
// {"dir":"in"|"out","t":<ms since start>,"frame":<the frame>}.
export class FrameRecorder {
  constructor(path) {
    this.path = path;
    this.start = performance.now();
    if (path) writeFileSync(path, "");
  }

  // record takes a raw line ("in") or a message object ("out").
  record(dir, frameOrLine) {
    if (!this.path) return;
    const t = Math.round((performance.now() - this.start) * 1000) / 1000;
    let frame = frameOrLine;
    if (typeof frameOrLine === "string") {
      try {
        frame = JSON.parse(frameOrLine);
      } catch {
        // keep the raw text of a non-JSON line
      }
    }
    appendFileSync(this.path, JSON.stringify({ dir, t, frame }) + "\n");
  }
}

// checkedIO builds the byte streams for ndJsonStream: the input is split
// into lines and every line is handed to onLine before the SDK sees the bytes;
// every message the SDK writes is handed to onMessage first.
export function checkedIO(nodeInput, nodeOutput, { onLine, onMessage } = {}) {
  let input = Readable.toWeb(nodeInput);
  if (onLine) {
    const decoder = new TextDecoder();
    let pending = "";
    input = input.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          const text = pending + decoder.decode(chunk, { stream: true });
          let start = 0;
          let nl;
          while ((nl = text.indexOf("\n", start)) >= 0) {
            let line = text.slice(start, nl);
            if (line.endsWith("\r")) line = line.slice(0, -1);
            onLine(line);
            start = nl + 1;
          }
          pending = text.slice(start);
          controller.enqueue(chunk);
        },
        flush() {
          const rest = pending + decoder.decode();
          if (rest !== "") onLine(rest);
        },
      }),
    );
  }
  const output = Writable.toWeb(nodeOutput);
  return { input, output, wrap: (stream) => wrapWritable(stream, onMessage) };
}

// wrapWritable returns an SDK Stream whose writable reports each outgoing
// message before passing it on.
function wrapWritable(stream, onMessage) {
  if (!onMessage) return stream;
  const writer = stream.writable.getWriter();
  const writable = new WritableStream({
    write(msg) {
      onMessage(msg);
      return writer.write(msg);
    },
    close() {
      return writer.close();
    },
    abort(reason) {
      return writer.abort(reason);
    },
  });
  return { readable: stream.readable, writable };
}
