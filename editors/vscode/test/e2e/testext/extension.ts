// The end-to-end test extension: another extension using parley's models the way any
// consumer of vscode.lm does. It contributes two tools, and when PARLEY_E2E_OUT names a
// file it runs its checks once VS Code has activated it and writes what it saw there.

import * as fs from 'node:fs';
import * as vscode from 'vscode';

class TextTool implements vscode.LanguageModelTool<Record<string, unknown>> {
  constructor(private readonly answer: (input: Record<string, unknown>) => string) {}
  invoke(options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>): vscode.LanguageModelToolResult {
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(this.answer(options.input))]);
  }
}

class StandInModel implements vscode.LanguageModelChatProvider {
  provideLanguageModelChatInformation(): vscode.LanguageModelChatInformation[] {
    return [{ id: 'stand-in', name: 'Stand-in model', family: 'stand-in', version: '1', maxInputTokens: 100_000, maxOutputTokens: 10_000, capabilities: { toolCalling: true } }]; // agent mode lists only models that call tools
  }
  async provideLanguageModelChatResponse(_model: vscode.LanguageModelChatInformation, _messages: readonly vscode.LanguageModelChatRequestMessage[], _options: vscode.ProvideLanguageModelChatResponseOptions, progress: vscode.Progress<vscode.LanguageModelResponsePart>): Promise<void> {
    progress.report(new vscode.LanguageModelTextPart('the stand-in model answers'));
  }
  async provideTokenCount(_model: vscode.LanguageModelChatInformation, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    return typeof text === 'string' ? text.length : 1;
  }
}

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.lm.registerTool('parley_e2e_echo', new TextTool((i) => `echo: ${String(i.text)}`)),
    vscode.lm.registerTool('parley_e2e_add', new TextTool((i) => String(Number(i.a) + Number(i.b)))),
  );
  // The editor's own model, for an editor where parley offers none (the chat sends
  // nothing, not even to @parley, without some model): it answers every request alike.
  if (process.env.PARLEY_E2E_STANDIN_MODEL) context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider('parley-e2e', new StandInModel()));
  const out = process.env.PARLEY_E2E_OUT;
  // Chat requests reach extensions only after activate returns: run from a timer.
  const mode = process.env.PARLEY_E2E_SELFTEST;
  if (out) setTimeout(() => void (mode === 'activation' ? activationTest(out) : mode === 'chat' ? openChatTest(out) : selfTest(out)), 0);
}

/**
 * Only whether the parley extension activated (an editor without some API must not stop
 * it), and the parley models VS Code offers.
 */
async function activationTest(out: string): Promise<void> {
  const results: Results = { done: false, steps: {} };
  try {
    const ext = vscode.extensions.getExtension('parley-acp.parley');
    const end = Date.now() + 60_000;
    while (ext && !ext.isActive && Date.now() < end) await new Promise((r) => setTimeout(r, 100)); // activation has no event
    results.steps.installed = !!ext;
    results.steps.active = !!ext?.isActive;
    results.steps.models = (await vscode.lm.selectChatModels({ vendor: 'parley' })).map((m) => m.id);
    // Asking for every vendor's models also makes VS Code resolve them, so that the model
    // picker lists them (it shows only vendors resolved so far).
    results.steps.allModels = (await vscode.lm.selectChatModels()).map((m) => `${m.vendor}/${m.id}`);
  } catch (err) {
    results.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  results.done = true;
  fs.writeFileSync(`${out}.tmp`, JSON.stringify(results, null, 2));
  fs.renameSync(`${out}.tmp`, out);
}

/** Once the parley extension is active, "parley: Open Chat" (its webview chat). */
async function openChatTest(out: string): Promise<void> {
  const results: Results = { done: false, steps: {} };
  try {
    const ext = vscode.extensions.getExtension('parley-acp.parley');
    const end = Date.now() + 60_000;
    while (ext && !ext.isActive && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    results.steps.commands = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith('parley.'));
    await vscode.commands.executeCommand('parley.openChat');
    results.steps.opened = true;
  } catch (err) {
    results.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  results.done = true;
  fs.writeFileSync(`${out}.tmp`, JSON.stringify(results, null, 2));
  fs.renameSync(`${out}.tmp`, out);
}

interface Results {
  done: boolean;
  error?: string;
  steps: Record<string, unknown>;
}

async function selfTest(out: string): Promise<void> {
  const results: Results = { done: false, steps: {} };
  const save = () => {
    fs.writeFileSync(`${out}.tmp`, JSON.stringify(results, null, 2));
    fs.renameSync(`${out}.tmp`, out); // the test reads it whole or not at all
  };
  const step = (name: string, value: unknown) => {
    results.steps[name] = value;
    save();
  };
  try {
    const models = await parleyModels(60_000);
    step('models', models.map((m) => ({ id: m.id, name: m.name, vendor: m.vendor, family: m.family })));
    const eliza = models.find((m) => m.id === 'eliza');
    if (!eliza) throw new Error('no eliza among the parley models');

    step('cold', await timedReply(eliza, 'slowly hello from another extension'));
    step('warm', await timedReply(eliza, 'slowly hello again'));
    // A backend that died: the next request starts it again. Timed, it is the cold start
    // of everything: the backend process, the agent process, the session.
    const killed = killBackends();
    step('killedBackends', killed.length);
    step('backendExecutables', killed.map((k) => k.exe));
    await Promise.all(killed.map((k) => waitGone(k.pid)));
    step('coldBackend', await timedReply(eliza, 'slowly back from the dead'));
    // "parley: Restart backend", then a new conversation once VS Code has listed the models
    // again: the extension asked parley to get the last chosen agent (Eliza) ready.
    const traces = process.env.PARLEY_E2E_TRACE;
    if (traces) {
      const before = new Set(fs.readdirSync(traces));
      await vscode.commands.executeCommand('parley.restartBackend');
      await vscode.lm.selectChatModels({ vendor: 'parley' });
      step('spareReady', await waitForLog(traces, before, /msg="spare session ready".*agent=eliza/, 30_000));
      step('prepared', await timedReply(eliza, 'slowly ready and waiting'));
      step('preparedTookSpare', await waitForLog(traces, before, /msg="took a spare session".*agent=eliza/, 10_000));
    }

    const tools = vscode.lm.tools
      .filter((t) => t.name === 'parley_e2e_echo' || t.name === 'parley_e2e_add')
      .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    step('toolsOffered', tools.map((t) => t.name));
    const messages: vscode.LanguageModelChatMessage[] = [
      vscode.LanguageModelChatMessage.User('use tool vscode_tools::parley_e2e_echo with {"text":"hi"}\nuse tool vscode_tools::parley_e2e_add with {"a":2,"b":3}'),
    ];
    const first = await collect(await eliza.sendRequest(messages, { tools, toolMode: vscode.LanguageModelChatToolMode.Auto }));
    const calls = first.parts.filter((p): p is vscode.LanguageModelToolCallPart => p instanceof vscode.LanguageModelToolCallPart);
    step('toolCalls', calls.map((c) => ({ name: c.name, input: c.input, callId: c.callId })));
    const results = [];
    for (const call of calls) {
      const r = await vscode.lm.invokeTool(call.name, { input: call.input, toolInvocationToken: undefined });
      results.push(new vscode.LanguageModelToolResultPart(call.callId, r.content));
    }
    messages.push(vscode.LanguageModelChatMessage.Assistant(first.parts as vscode.LanguageModelToolCallPart[]), vscode.LanguageModelChatMessage.User(results));
    const second = await collect(await eliza.sendRequest(messages, { tools, toolMode: vscode.LanguageModelChatToolMode.Auto }));
    step('afterTools', second.text);

    step('tokens', await eliza.countTokens('Hello, world!'));
    results.length = 0;
  } catch (err) {
    results.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  results.done = true;
  save();
}

/**
 * Waits until a backend that started after `before` was listed logs a line matching re (its
 * trace holds its log; parley writes a file, so this polls). Returns whether one did.
 */
async function waitForLog(dir: string, before: Set<string>, re: RegExp, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    for (const f of fs.readdirSync(dir)) {
      if (!before.has(f) && fs.readFileSync(`${dir}/${f}`, 'utf8').split('\n').some((l) => l.includes(' stderr ') && re.test(l))) return true;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/** Kills the `parley vscodelm` processes this extension host started; returns their pids and binaries. */
function killBackends(): Array<{ pid: number; exe: string }> {
  const pids: Array<{ pid: number; exe: string }> = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && argv.includes('vscodelm')) pids.push({ pid: Number(name), exe: fs.readlinkSync(`/proc/${name}/exe`) });
    } catch {
      // gone meanwhile
    }
  }
  for (const { pid } of pids) process.kill(pid, 'SIGKILL');
  return pids;
}

/** Resolves when the process is gone (polls: a non-child's exit has no event). */
async function waitGone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The parley models, waiting for VS Code to list them. */
async function parleyModels(timeoutMs: number): Promise<vscode.LanguageModelChat[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const models = await vscode.lm.selectChatModels({ vendor: 'parley' });
    if (models.length > 0 || Date.now() > end) return models;
    await new Promise<void>((resolve) => {
      const sub = vscode.lm.onDidChangeChatModels(() => (sub.dispose(), resolve()));
      setTimeout(() => (sub.dispose(), resolve()), 500);
    });
  }
}

async function collect(res: vscode.LanguageModelChatResponse): Promise<{ parts: unknown[]; text: string; firstPartMs?: number }> {
  const start = Date.now();
  const parts: unknown[] = [];
  let firstPartMs: number | undefined;
  for await (const part of res.stream) {
    firstPartMs ??= Date.now() - start;
    parts.push(part);
  }
  const text = parts.filter((p): p is vscode.LanguageModelTextPart => p instanceof vscode.LanguageModelTextPart).map((p) => p.value).join('');
  return { parts, text, firstPartMs };
}

/** A one-message conversation: the reply and the time from the request to its first part. */
async function timedReply(model: vscode.LanguageModelChat, prompt: string): Promise<{ text: string; firstPartMs: number; totalMs: number }> {
  const start = Date.now();
  const res = await model.sendRequest([vscode.LanguageModelChatMessage.User(prompt)], {});
  let firstPartMs = -1;
  let text = '';
  for await (const chunk of res.text) {
    if (firstPartMs < 0) firstPartMs = Date.now() - start;
    text += chunk;
  }
  return { text, firstPartMs, totalMs: Date.now() - start };
}
