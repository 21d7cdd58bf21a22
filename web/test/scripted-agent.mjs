// A scripted ACP agent for the web chat's tests: each line of a prompt is a command, and
// the agent does what it says against its client (parley), with no model:
//
//   plan        a plan of three steps, one done, one running
//   diff        an edit tool call carrying a diff
//   files       an edit of main.go in the session's directory (a diff, its location at line
//               2) and a read of /etc/passwd (outside it)
//   usage       a usage_update (tokens and cost)
//   config      config options (a select and a boolean); set_config_option changes them
//   elicit      a form elicitation; tells what was answered
//   elicit-url URL  a URL elicitation; tells what was answered
//   output      a command's tool call whose output comes as text content (ls -la and a
//               failing go test: a "# ./..." line, a "*" and HTML-looking text)
//   terminal    runs a command in a terminal parley owns, shown live on a tool call
//   xss         a reply carrying <img onerror>, <script> and javascript: links
//   hidden      a reply and a tool call holding characters that show nothing (tag
//               characters, a bidi override, invisible operators…), an emoji's selector
//               in a chunk of its own
//   write       writes hello.txt in the session's directory through parley (fs/write_text_file)
//   hook        writes .git/hooks/pre-commit (a hook git would run), sets core.fsmonitor
//               and a filter driver (its name holding a bidi override) in .git/config,
//               makes run.sh executable: straight on disk, as an agent's own tools would
//   ask-raw     a command's tool call titled with its tool's name (run_terminal_command),
//               its permission asked, then failed
//   long        streams longText (48 KiB of numbered lines) in 7-character chunks
//   ask-later   ask-raw, 500 ms after the prompt
//   slow-tool   a tool call that runs for 400 ms
//   title TEXT  names the session (session_info_update)
//   wide        an edit whose diff has a line far wider than a phone
//   anything else is echoed back.
import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { commandOutput } from "./commandoutput.mjs";
import { longText } from "./longtext.mjs";

let nextId = 1;
const pending = new Map();
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
const call = (method, params) => new Promise((resolve, reject) => {
  const id = nextId++;
  pending.set(id, { resolve, reject });
  send({ id, method, params });
});
const update = (sessionId, u) => send({ method: "session/update", params: { sessionId, update: u } });
const say = (sessionId, text) => update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });

let brave = false;
let cwd = "";
let style = "terse";
const configOptions = () => [
  { id: "style", name: "Style", category: "_style", type: "select", currentValue: style, options: [{ value: "terse", name: "Terse" }, { value: "chatty", name: "Chatty" }] },
  { id: "brave", name: "Brave mode", type: "boolean", currentValue: brave },
];

const handlers = {
  initialize: () => ({ protocolVersion: 1, agentInfo: { name: "scripted", title: "Scripted agent", version: "1" }, agentCapabilities: { promptCapabilities: { image: true } } }),
  "session/new": (p) => ((cwd = p.cwd), { sessionId: "scripted-1", configOptions: configOptions() }),
  "session/set_config_option": (p) => {
    if (p.configId === "brave") brave = !!p.value;
    if (p.configId === "style") style = p.value;
    return { configOptions: configOptions() };
  },
  "session/prompt": async (p) => {
    const sid = p.sessionId;
    const text = p.prompt.filter((b) => b.type === "text").map((b) => b.text).join("");
    for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
      if (line === "plan") {
        update(sid, { sessionUpdate: "plan", entries: [
          { content: "Read the code", priority: "high", status: "completed" },
          { content: "Write the fix", priority: "medium", status: "in_progress" },
          { content: "Run the tests", priority: "low", status: "pending" },
        ] });
      } else if (line === "diff") {
        update(sid, { sessionUpdate: "tool_call", toolCallId: "edit-1", title: "Edit main.go", kind: "edit", status: "completed",
          content: [{ type: "diff", path: "/srv/proj/main.go", oldText: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n", newText: "package main\n\nfunc main() {\n\tprintln(\"hello, world\")\n}\n" }],
          locations: [{ path: "/srv/proj/main.go", line: 4 }] });
      } else if (line === "files") {
        update(sid, { sessionUpdate: "tool_call", toolCallId: "edit-2", title: "Edit main.go here", kind: "edit", status: "completed",
          content: [{ type: "diff", path: `${cwd}/main.go`, oldText: "package main\n\nfunc main() {}\n", newText: "package main\n\nfunc main() { run() }\n" }],
          locations: [{ path: `${cwd}/main.go`, line: 3 }] });
        update(sid, { sessionUpdate: "tool_call", toolCallId: "read-2", title: "Read the passwords", kind: "read", status: "completed", locations: [{ path: "/etc/passwd" }] });
        say(sid, "files shown");
      } else if (line === "usage") {
        update(sid, { sessionUpdate: "usage_update", used: 53000, size: 200000, cost: { amount: 0.045, currency: "USD" } });
      } else if (line === "config") {
        update(sid, { sessionUpdate: "config_option_update", configOptions: configOptions() });
        say(sid, `style ${style}, brave ${brave}`);
      } else if (line === "elicit") {
        const r = await call("elicitation/create", { sessionId: sid, mode: "form", message: "Which strategy?", requestedSchema: { type: "object", properties: {
          strategy: { type: "string", title: "Strategy", enum: ["safe", "fast"] },
          retries: { type: "integer", title: "Retries", minimum: 0, maximum: 5, default: 2 },
        }, required: ["strategy"] } });
        say(sid, `elicitation: ${r.action} ${JSON.stringify(r.content ?? {})}`);
      } else if (line.startsWith("elicit-url ")) {
        const r = await call("elicitation/create", { sessionId: sid, mode: "url", elicitationId: "page-1", message: "Open this page", url: line.slice("elicit-url ".length) });
        say(sid, `elicitation: ${r.action}`);
      } else if (line === "ask-raw" || line === "ask-later") {
        if (line === "ask-later") await new Promise((r) => setTimeout(r, 500));
        const toolCall = { toolCallId: "raw-1", title: "run_terminal_command", kind: "execute", status: "pending", rawInput: { command: "go test ./..." } };
        update(sid, { sessionUpdate: "tool_call", ...toolCall });
        const r = await call("session/request_permission", { sessionId: sid, toolCall, options: [
          { optionId: "y", name: "Yes", kind: "allow_once" }, { optionId: "n", name: "No", kind: "reject_once" }] });
        update(sid, { sessionUpdate: "tool_call_update", toolCallId: "raw-1", status: "failed" });
        say(sid, `permission: ${r.outcome.outcome === "selected" ? r.outcome.optionId : r.outcome.outcome}`);
      } else if (line === "output") {
        update(sid, { sessionUpdate: "tool_call", toolCallId: "out-1", title: "Run `go test ./...`", kind: "execute", status: "failed",
          content: [{ type: "content", content: { type: "text", text: commandOutput } }] });
        say(sid, "ran it");
      } else if (line === "terminal") {
        const t = await call("terminal/create", { sessionId: sid, command: "sh", args: ["-c", "echo hello from the terminal; sleep 0.5; echo second line"] });
        update(sid, { sessionUpdate: "tool_call", toolCallId: "term-1", title: "Run the script", kind: "execute", status: "in_progress", content: [{ type: "terminal", terminalId: t.terminalId }] });
        const exit = await call("terminal/wait_for_exit", { sessionId: sid, terminalId: t.terminalId });
        await call("terminal/release", { sessionId: sid, terminalId: t.terminalId });
        update(sid, { sessionUpdate: "tool_call_update", toolCallId: "term-1", status: exit.exitCode === 0 ? "completed" : "failed" });
        say(sid, `terminal exited ${exit.exitCode}`);
      } else if (line === "long") {
        for (let i = 0; i < longText.length; i += 7) {
          say(sid, longText.slice(i, i + 7));
          if (i % 2048 < 7) await new Promise((r) => setTimeout(r, 5)); // the page draws meanwhile
        }
      } else if (line === "slow-tool") {
        update(sid, { sessionUpdate: "tool_call", toolCallId: "slow-1", title: "Build the project", kind: "execute", status: "in_progress" });
        await new Promise((r) => setTimeout(r, 400));
        update(sid, { sessionUpdate: "tool_call_update", toolCallId: "slow-1", status: "completed" });
        say(sid, "built");
      } else if (line.startsWith("title ")) {
        update(sid, { sessionUpdate: "session_info_update", title: line.slice("title ".length) });
      } else if (line === "wide") {
        const wide = "\tconst message = \"" + "a very long line of text that no phone shows whole ".repeat(4) + "\"\n";
        update(sid, { sessionUpdate: "tool_call", toolCallId: "wide-1", title: "Edit wide.go", kind: "edit", status: "completed",
          content: [{ type: "diff", path: `${cwd}/wide.go`, oldText: "package main\n", newText: "package main\n" + wide }] });
        say(sid, "wide shown");
      } else if (line === "write") {
        await call("fs/write_text_file", { sessionId: sid, path: `${cwd}/hello.txt`, content: "hello\nfrom the agent\n" });
        say(sid, "wrote hello.txt");
      } else if (line === "hook") {
        mkdirSync(`${cwd}/.git/hooks`, { recursive: true });
        writeFileSync(`${cwd}/.git/hooks/pre-commit`, "#!/bin/sh\necho from the agent\n", { mode: 0o755 });
        chmodSync(`${cwd}/.git/hooks/pre-commit`, 0o755); // whatever the umask
        chmodSync(`${cwd}/run.sh`, 0o755);
        // A filter driver whose name hides a bidi override: git runs its clean command.
        appendFileSync(`${cwd}/.git/config`, '[core]\n\tfsmonitor = ./fsmonitor.sh\n[filter "e\u202elive"]\n\tclean = ./clean.sh\n');
        say(sid, "wrote a hook and git configuration, made run.sh executable");
      } else if (line === "hidden") {
        say(sid, "Hidden: tags \u{E0041}\u{E0042}, soft\u00adhyphen, f\u2061x, a\u200cb, \u202egnp.exe, filler \u3164, ");
        say(sid, "emoji \u26a0");
        say(sid, "\ufe0f \u{1F469}\u200d\u{1F4BB} end\n");
        update(sid, { sessionUpdate: "tool_call", toolCallId: "hidden-1", title: "Run rm\u{E0020}\u{E002D}rf \u202eevil", kind: "execute", status: "completed" });
      } else if (line === "xss") {
        say(sid, 'Look: <img src="x" onerror="window.__pwned=1"> and <script>window.__pwned=2</script>\n\n' +
          '[a link](javascript:window.__pwned=3) and <a href="javascript:window.__pwned=4">raw</a> and ' +
          '![pic](javascript:window.__pwned=5) ![remote](https://example.invalid/x.png) [fine](https://example.invalid/)');
      } else {
        say(sid, `echo: ${line}\n`);
      }
    }
    return { stopReason: "end_turn" };
  },
};

createInterface({ input: process.stdin }).on("line", async (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.method === undefined) {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (p) m.error ? p.reject(new Error(m.error.message)) : p.resolve(m.result);
    return;
  }
  const h = handlers[m.method];
  if (m.id === undefined) return; // notifications (session/cancel): nothing runs long enough
  if (!h) return send({ id: m.id, error: { code: -32601, message: "method not found" } });
  try {
    send({ id: m.id, result: await h(m.params) });
  } catch (e) {
    send({ id: m.id, error: { code: -32603, message: String(e.message) } });
  }
});
