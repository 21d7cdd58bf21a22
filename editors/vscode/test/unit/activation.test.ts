// The extension as the editor activates it where some of VS Code's APIs are missing, as
// published (no proposed API) and in its proposed flavour, with the parley it finds, and
// the check of that parley's version. Each test activates the extension afresh.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { activate, deactivate } from '../../src/extension';
import type { ParleyChatProvider } from '../../src/provider';
import { isolatedEnv, parleyBin } from './helpers';
import * as vscode from './vscode-mock';

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-vscode-activation-'));
const token = () => new vscode.CancellationTokenSource().token;

/** A chat response stream that accepts the proposed calls too, and records all. */
class Stream {
  calls: Array<{ kind: string; value: unknown }> = [];
  markdown(v: string | vscode.MarkdownString) {
    this.calls.push({ kind: 'markdown', value: typeof v === 'string' ? v : v.value });
  }
  progress(v: string) {
    this.calls.push({ kind: 'progress', value: v });
  }
  push(part: unknown) {
    this.calls.push({ kind: 'push', value: part });
  }
  thinkingProgress(p: { text: string }) {
    this.calls.push({ kind: 'thinking', value: p.text });
  }
  of(kind: string): unknown[] {
    return this.calls.filter((c) => c.kind === kind).map((c) => c.value);
  }
  text(): string {
    return this.of('markdown').join('');
  }
}

/** The API functions a test removes, restored afterwards. */
type Removable = 'lm.registerLanguageModelChatProvider' | 'lm.registerTool' | 'lm.invokeTool' | 'chat.createChatParticipant';

interface Activation {
  context: { subscriptions: Array<{ dispose(): unknown }>; extensionPath: string };
  /** @parley's answer to prompt, through the registered participant. */
  ask(prompt: string): Promise<Stream>;
  provider(): ParleyChatProvider;
}

/**
 * Activates the extension with settings, packageJSON and an extension folder, with the
 * named API functions missing, runs body, and deactivates.
 */
async function activated(
  opts: { settings?: Record<string, unknown>; remove?: Removable[]; packageJSON?: unknown; extensionPath?: string },
  body: (a: Activation) => Promise<void>,
): Promise<void> {
  const saved: Array<[Record<string, unknown>, string, unknown]> = [];
  for (const name of opts.remove ?? []) {
    const [ns, fn] = name.split('.') as ['lm' | 'chat', string];
    const obj = vscode[ns] as unknown as Record<string, unknown>;
    saved.push([obj, fn, obj[fn]]);
    delete obj[fn];
  }
  vscode.mock.configuration = { 'parley.path': parleyBin(), 'parley.logLevel': 'debug', ...opts.settings };
  vscode.mock.messages = [];
  vscode.mock.messageOptions = [];
  vscode.mock.output = [];
  vscode.mock.terminals = [];
  vscode.mock.answer = () => undefined;
  const context = {
    subscriptions: [] as Array<{ dispose(): unknown }>,
    workspaceState: { get: () => undefined, update: async () => undefined },
    extension: { packageJSON: opts.packageJSON ?? pkg },
    extensionPath: opts.extensionPath ?? path.join(scratch, 'extension-without-parley'),
  };
  try {
    activate(context as never);
    await body({
      context,
      async ask(prompt) {
        const participant = vscode.mock.participants.get('parley.agent');
        assert.ok(participant, '@parley is registered');
        const stream = new Stream();
        const request = { prompt, command: undefined, references: [], toolReferences: [], toolInvocationToken: { chat: 'token' }, model: { vendor: 'copilot', id: 'gpt' } };
        const result = await participant.handler(request, { history: [] }, stream, token());
        assert.equal((result as { errorDetails?: unknown }).errorDetails, undefined, JSON.stringify(result));
        return stream;
      },
      provider: () => vscode.mock.providers.get('parley') as ParleyChatProvider,
    });
  } finally {
    await deactivate();
    for (const s of context.subscriptions) s.dispose();
    for (const [obj, fn, value] of saved) obj[fn] = value;
  }
}

/** Waits for a message matching re (the version check runs beside the backend's start). */
async function message(kind: 'warning' | 'info' | 'error', re: RegExp, timeoutMs = 10_000): Promise<string | undefined> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const m = vscode.mock.messages.find((x) => x.kind === kind && re.test(x.text));
    if (m || Date.now() > end) return m?.text;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function logged(re: RegExp, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (vscode.mock.output.some((l) => re.test(l))) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A stand-in parley that says it is version, and otherwise is the real one. */
function parleyOfVersion(version: string): string {
  const file = path.join(scratch, `parley-${version}`);
  fs.writeFileSync(file, `#!/bin/sh\nif [ "$1" = --version ]; then echo "parley version ${version}"; exit 0; fi\nexec "${parleyBin()}" "$@"\n`, { mode: 0o755 });
  return file;
}

before(() => {
  Object.assign(process.env, isolatedEnv());
  vscode.mock.workspaceFolders = [{ uri: vscode.Uri.file(scratch), name: 'scratch', index: 0 }];
});
after(() => {
  fs.rmSync(process.env.HOME!, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('publishable', () => {
  test('package.json declares no proposed API', () => {
    assert.equal(pkg.enabledApiProposals, undefined, 'the Marketplace refuses extensions that declare proposed API');
    assert.equal(pkg.enableProposedApi, undefined);
  });

  test('as published, @parley shows tool calls and thoughts through stable APIs only', async () => {
    await activated({}, async (a) => {
      const stream = await a.ask('think it over\ntool call Build the project');
      assert.deepEqual(stream.of('push'), [], 'no ChatToolInvocationPart');
      assert.deepEqual(stream.of('thinking'), [], 'no thinkingProgress');
      assert.ok(stream.of('progress').includes('Thinking…'));
      assert.ok(stream.of('progress').includes('Building the project'));
      assert.match(stream.text(), /✓ Built the project/);
      assert.match(stream.text(), /tool call Build the project: completed/);
    });
  });

  test('the proposed flavour uses ChatToolInvocationPart and thinking parts', async () => {
    await activated({ packageJSON: { ...pkg, enabledApiProposals: ['chatParticipantAdditions'] } }, async (a) => {
      const stream = await a.ask('think it over\ntool call Build the project');
      assert.ok(stream.of('push').length >= 2, 'the tool call is a tool entry updated in place');
      assert.deepEqual(stream.of('thinking'), ['it over']);
    });
  });
});

describe('editors without some of VS Code\'s APIs', () => {
  test('no language model provider API: activates, no models, @parley answers', async () => {
    await activated({ remove: ['lm.registerLanguageModelChatProvider'] }, async (a) => {
      assert.equal(vscode.mock.providers.size, 0);
      assert.ok(vscode.mock.tools.has('parley-agent-action'));
      assert.ok(vscode.mock.commands.has('parley.restartBackend'));
      assert.ok(vscode.mock.output.some((l) => /no language model provider API .*@parley and "parley: Chat in a terminal" still reach them/.test(l)), vscode.mock.output.join('\n'));
      assert.deepEqual(vscode.mock.messages, [], 'nothing to bother the user with: @parley works');
      const stream = await a.ask('slowly hello without models');
      assert.equal(stream.text().trim(), 'hello without models');
    });
  });

  test('no tool API: @parley asks before an agent acts in a dialog; allowed goes ahead, closed refuses', async () => {
    await activated({ remove: ['lm.registerTool', 'lm.invokeTool'] }, async (a) => {
      assert.equal(vscode.mock.tools.size, 0);
      vscode.mock.answer = (kind, text, options, items) => (kind === 'warning' && (options as { modal?: boolean })?.modal && /deploy the site/.test(text) ? items[0] : undefined);
      const allowed = await a.ask('request permission deploy the site');
      assert.match(allowed.text(), /permission: allow_once/);
      assert.match(vscode.mock.messages.at(-1)!.text, /^Allow the agent to deploy the site\?$/);
      const refused = await a.ask('request permission delete the repository');
      assert.match(refused.text(), /Declined/);
      assert.doesNotMatch(refused.text(), /allow_once/);
    });
  });

  test('neither chat nor language model API: activates, says once what works, and "Chat in a terminal" runs parley chat', async () => {
    await activated({ remove: ['lm.registerLanguageModelChatProvider', 'lm.registerTool', 'lm.invokeTool', 'chat.createChatParticipant'] }, async () => {
      assert.equal(vscode.mock.participants.size, 0);
      assert.equal(vscode.mock.providers.size, 0);
      const said = vscode.mock.messages.filter((m) => m.kind === 'info');
      assert.equal(said.length, 1);
      assert.match(said[0].text, /neither VS Code's chat nor its language model API.*Chat in a terminal/);
      await vscode.commands.executeCommand('parley.chatInTerminal');
      assert.deepEqual(vscode.mock.terminals.map((t) => ({ shellPath: t.shellPath, shellArgs: t.shellArgs, cwd: t.cwd, shown: t.shown })), [
        { shellPath: parleyBin(), shellArgs: ['chat', '--agent', 'eliza'], cwd: scratch, shown: true },
      ]);
    });
  });
});

describe('the version of parley', () => {
  const list = (a: Activation) => a.provider().provideLanguageModelChatInformation({ silent: true }, token());

  test('another version: a warning with both versions and what to do; parley still serves', async () => {
    const old = parleyOfVersion('v0.0.1');
    await activated({ settings: { 'parley.path': old } }, async (a) => {
      const models = await list(a);
      assert.ok(models.some((m) => m.id === 'eliza'), 'the backend serves all the same');
      const warning = await message('warning', /v0\.0\.1/);
      assert.ok(warning, `no warning; messages: ${JSON.stringify(vscode.mock.messages)}`);
      assert.ok(warning.includes(old) && warning.includes(`(${pkg.version})`), warning);
      assert.match(warning, /parley\.path chose it/);
      await list(a);
      assert.equal(vscode.mock.messages.filter((m) => m.kind === 'warning').length, 1, 'said once per binary');
    });
  });

  test('another version on PATH: the warning offers the matching install command', async () => {
    const dir = path.join(scratch, 'path-dir');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(parleyOfVersion('v0.0.2'), path.join(dir, 'parley'));
    const oldPath = process.env.PATH;
    process.env.PATH = `${dir}${path.delimiter}${oldPath}`;
    let copied = '';
    try {
      await activated({ settings: { 'parley.path': '' } }, async (a) => {
        const clipboard = vscode.env.clipboard.writeText;
        vscode.env.clipboard.writeText = async (t: string) => void (copied = t);
        vscode.mock.answer = (kind, _text, _options, items) => (kind === 'warning' ? items.find((i) => i === 'Copy Install Command') : undefined);
        try {
          await list(a);
          const warning = await message('warning', /v0\.0\.2/);
          assert.ok(warning, JSON.stringify(vscode.mock.messages));
          assert.match(warning, new RegExp(`go install github\\.com/parley-acp/parley/cmd/parley@v${pkg.version.replace(/\./g, '\\.')}`));
          for (let i = 0; i < 100 && !copied; i++) await new Promise((r) => setTimeout(r, 10));
          assert.equal(copied, `go install github.com/parley-acp/parley/cmd/parley@v${pkg.version}`);
        } finally {
          vscode.env.clipboard.writeText = clipboard;
        }
      });
    } finally {
      process.env.PATH = oldPath;
    }
  });

  test("the extension's version: no warning, and the log says they match", async () => {
    await activated({ settings: { 'parley.path': parleyOfVersion(`v${pkg.version}`) } }, async (a) => {
      await list(a);
      assert.ok(await logged(new RegExp(`parley v${pkg.version.replace(/\./g, '\\.')} at .*the version of this extension`)), vscode.mock.output.join('\n'));
      assert.deepEqual(vscode.mock.messages.filter((m) => m.kind === 'warning'), []);
    });
  });

  test('a development build: no warning; the log says it cannot tell', async () => {
    await activated({ settings: { 'parley.path': parleyOfVersion('devel 1a2b3c4d5e6f') } }, async (a) => {
      await list(a);
      assert.ok(await logged(/says its version is "devel 1a2b3c4d5e6f": a development build/), vscode.mock.output.join('\n'));
      assert.deepEqual(vscode.mock.messages.filter((m) => m.kind === 'warning'), []);
    });
  });
});
