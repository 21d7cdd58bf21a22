// The model provider against the real `parley vscodelm`, with Eliza's test commands.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { AgentActionTool } from '../../src/agentAction';
import { assistant, gone, harness, noTools, parleyBin, Recorder, textOf, toolCallsOf, toolResults, tools, user } from './helpers';
import * as vscode from './vscode-mock';

const token = () => new vscode.CancellationTokenSource().token;

describe('model provider', () => {
  const h = harness({ agentServers: { mine: { command: 'my-agent', args: ['--acp'], env: { K: 'V' } } } });
  after(() => h.dispose());

  test('lists every model the backend names, with the definition to send back', async () => {
    const models = await h.provider.provideLanguageModelChatInformation({ silent: true }, token());
    const byId = new Map(models.map((m) => [m.id, m]));
    const eliza = byId.get('eliza')!;
    assert.ok(eliza, `eliza among ${models.map((m) => m.id)}`);
    assert.equal(eliza.name, 'Eliza (parley)');
    assert.equal(eliza.detail, 'built-in');
    assert.ok(eliza.maxInputTokens > 0 && eliza.maxOutputTokens > 0);
    assert.deepEqual((eliza.agent as { args: string[] }).args, ['eliza']);
    assert.equal(byId.get('parley')?.name, 'parley agent (parley)');
    const mine = byId.get('mine')!;
    assert.ok(mine, 'the agentServers setting adds its agents, even one that cannot start here');
    assert.equal(mine.name, 'mine (parley)');
    assert.match(mine.detail ?? '', /my-agent is not installed/, 'the picker says why it cannot start');
    assert.deepEqual(mine.agent, { id: 'mine', name: 'mine', command: 'my-agent', args: ['--acp'], env: [{ name: 'K', value: 'V' }] });
    for (const m of models) assert.ok(m.agent, `${m.id} has an agent definition`);
  });

  test('streams a reply part by part', async () => {
    const model = await h.model('eliza');
    const progress = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, [user('slowly one two three four')], noTools, progress, token());
    assert.equal(textOf(progress.parts).replace(/\s+/g, ' ').trim(), 'one two three four');
    assert.ok(progress.parts.length >= 3, `${progress.parts.length} parts; want the words to come one by one`);
    assert.deepEqual(h.chosen.at(-1), 'eliza');
  });

  test('a tool round trip with several tools', async () => {
    const model = await h.model('eliza');
    const options = tools('a', 'b', 'c', 'parley-agent-action');
    const history = [user('use tool vscode_tools::a with {"x":2}\nuse tool vscode_tools::b with {"y":"z"}')];
    const first = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, history, options, first, token());
    const calls = toolCallsOf(first.parts);
    assert.deepEqual(calls.map((c) => c.name).sort(), ['a', 'b']);
    const a = calls.find((c) => c.name === 'a')!;
    const b = calls.find((c) => c.name === 'b')!;
    assert.deepEqual(a.input, { x: 2 });
    assert.deepEqual(b.input, { y: 'z' });
    assert.notEqual(a.callId, b.callId);

    history.push(assistant(first.parts), toolResults([b.callId, 'beta'], [a.callId, 'alpha']));
    const second = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, history, options, second, token());
    assert.match(textOf(second.parts), /OK: alpha\nOK: beta/);
  });

  test('lists the tools it was given', async () => {
    const model = await h.model('eliza');
    const progress = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, [user('list tools from vscode_tools')], tools('a', 'b', 'c', 'parley-agent-action'), progress, token());
    const listing = textOf(progress.parts);
    for (const name of ['a', 'b', 'c']) assert.match(listing, new RegExp(`- ${name}: Tool ${name}`));
    assert.doesNotMatch(listing, /parley-agent-action/, 'the agent-action tool is not bridged');
  });

  async function askPermission(model: Awaited<ReturnType<typeof h.model>>, history: vscode.LanguageModelChatMessage[]) {
    const progress = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, history, tools('parley-agent-action'), progress, token());
    const calls = toolCallsOf(progress.parts);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].name, 'parley-agent-action');
    return { parts: progress.parts, call: calls[0] };
  }

  test('a permission approved in the confirmation reaches the agent as allow_once', async () => {
    const model = await h.model('eliza');
    const history = [user('request permission deploy the site')];
    const { parts, call } = await askPermission(model, history);
    const tool = new AgentActionTool();
    const prepared = tool.prepareInvocation({ input: call.input as never });
    assert.match(String(prepared.invocationMessage), /deploy the site/);
    assert.match((prepared.confirmationMessages!.message as unknown as vscode.MarkdownString).value, /Allow the agent to \*\*deploy the site\*\*\?/);
    const result = tool.invoke() as unknown as vscode.LanguageModelToolResult;
    history.push(assistant(parts), vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(call.callId, result.content)]));
    const after = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, history, tools('parley-agent-action'), after, token());
    assert.match(textOf(after.parts), /permission: allow_once/);
  });

  test('a permission declined never reaches the agent as an approval', async () => {
    const model = await h.model('eliza');
    const history = [user('request permission delete everything')];
    await askPermission(model, history);
    // VS Code drops a declined call from the history; the user's next message follows.
    history.push(user('I am worried about my tests'));
    const after = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, history, tools('parley-agent-action'), after, token());
    const text = textOf(after.parts);
    assert.doesNotMatch(text, /allow/);
    assert.ok(text.trim().length > 0, 'the new message is answered');
  });

  test('a skipped confirmation (VS Code answers without running the tool) is a refusal, and the turn goes on', async () => {
    const model = await h.model('eliza');
    const history = [user('request permission format the disk')];
    const { parts, call } = await askPermission(model, history);
    history.push(assistant(parts), toolResults([call.callId, 'The user chose to skip the tool call, they want to proceed without running it']));
    const after = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, history, tools('parley-agent-action'), after, token());
    assert.match(textOf(after.parts), /permission: reject_once/);
    history.push(assistant(after.parts), user('slowly carry on'));
    const next = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, history, tools('parley-agent-action'), next, token());
    assert.equal(textOf(next.parts).trim(), 'carry on');
  });

  test('cancellation sends lm/cancel and ends in CancellationError; the next request works', async () => {
    const model = await h.model('eliza');
    const source = new vscode.CancellationTokenSource();
    const progress = new Recorder<unknown>();
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    const pending = h.provider.provideLanguageModelChatResponse(model, [user(`slowly ${words}`)], noTools, progress, source.token);
    await progress.atLeast(1);
    source.cancel();
    await assert.rejects(pending, (err: unknown) => err instanceof vscode.CancellationError);
    const count = progress.parts.length;
    assert.ok(count < 200, 'streaming stopped');
    const next = new Recorder<unknown>();
    await h.provider.provideLanguageModelChatResponse(model, [user('slowly still here')], noTools, next, token());
    assert.equal(textOf(next.parts).trim(), 'still here');
    assert.equal(progress.parts.length, count, 'nothing reported after the cancel');
  });

  test('counts tokens through the backend', async () => {
    const model = await h.model('eliza');
    assert.equal(await h.provider.provideTokenCount(model, 'Hello, world!', token()), 3);
    assert.equal(await h.provider.provideTokenCount(model, user('Hello, world!'), token()), 3);
  });
});

describe('backend process', () => {
  test('a backend that dies mid-request fails the request readably; the next one starts it again', async () => {
    const h = harness();
    try {
      const model = await h.model('eliza');
      const progress = new Recorder<unknown>();
      const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
      const pending = h.provider.provideLanguageModelChatResponse(model, [user(`slowly ${words}`)], noTools, progress, token());
      await progress.atLeast(1);
      const pid = h.backend.pid!;
      process.kill(pid, 'SIGKILL');
      await assert.rejects(pending, (err: unknown) => {
        assert.ok(err instanceof Error && !(err instanceof vscode.CancellationError));
        assert.match(err.message, /parley backend was killed by SIGKILL.*next request starts it again/);
        return true;
      });
      const next = new Recorder<unknown>();
      await h.provider.provideLanguageModelChatResponse(model, [user('slowly back again')], noTools, next, token());
      assert.equal(textOf(next.parts).trim(), 'back again');
      assert.notEqual(h.backend.pid, pid);
    } finally {
      await h.dispose();
    }
  });

  test('ends on dispose when its stdin is closed, and takes its agents with it', async () => {
    const h = harness();
    const model = await h.model('eliza');
    await h.provider.provideLanguageModelChatResponse(model, [user('hello')], noTools, new Recorder<unknown>(), token());
    const pid = h.backend.pid!;
    await h.dispose();
    assert.ok(await gone(pid));
    assert.ok(h.log.lines.some((l) => l.includes('exited when its stdin was closed')), h.log.lines.join('\n'));
  });

  test('a backend that ignores its closed stdin gets a signal', async () => {
    // A stand-in that never reads stdin: only a signal ends it.
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-stub-'));
    const stub = path.join(dir, 'parley');
    fs.writeFileSync(stub, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
    const h = harness({ bin: stub, stopGraceMs: 200 });
    await h.backend.start();
    const pid = h.backend.pid!;
    await h.dispose();
    assert.ok(await gone(pid));
    assert.ok(h.log.lines.some((l) => l.includes('exited on SIGTERM')), h.log.lines.join('\n'));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('restart fails the open request with a message and serves the next', async () => {
    const h = harness();
    try {
      const model = await h.model('eliza');
      const progress = new Recorder<unknown>();
      const pending = h.provider.provideLanguageModelChatResponse(model, [user('slowly ' + 'tick '.repeat(200))], noTools, progress, token());
      const failed = pending.then(() => undefined, (e: unknown) => e);
      await progress.atLeast(1);
      await h.backend.restart();
      assert.match(String(await failed), /restarted/);
      const next = new Recorder<unknown>();
      await h.provider.provideLanguageModelChatResponse(model, [user('slowly fresh')], noTools, next, token());
      assert.equal(textOf(next.parts).trim(), 'fresh');
    } finally {
      await h.dispose();
    }
  });

  test('parley missing: no models, and a message that says how to install it', async () => {
    const { locateParley } = await import('../../src/locate');
    const { Backend } = await import('../../src/backend');
    const { ParleyChatProvider } = await import('../../src/provider');
    const failures: unknown[] = [];
    const env = { PATH: '/nonexistent', HOME: '/nonexistent', GOPATH: '/nonexistent/go' };
    const backend = new Backend({ locate: () => locateParley('', env), globalArgs: () => [], log: { appendLine: () => undefined } });
    const provider = new ParleyChatProvider({
      models: () => ({ backend, agentServers: {}, workspace: () => ({}) }),
      log: { appendLine: () => undefined },
      reportStartFailure: (e) => failures.push(e),
      onChosen: () => undefined,
      onListed: () => undefined,
    });
    assert.deepEqual(await provider.provideLanguageModelChatInformation({ silent: false }, token()), []);
    assert.equal(failures.length, 1);
    assert.match(String((failures[0] as Error).message), /go install github\.com\/parley-acp\/parley\/cmd\/parley@latest/);
    await assert.rejects(locateParley('/nonexistent/parley', env), /parley\.path is "\/nonexistent\/parley"/);
    provider.dispose(); // it would go on trying
  });
});

describe('model listing', () => {
  /** Resolves when the provider tells VS Code the models changed; rejects after ms. */
  function announced(h: ReturnType<typeof harness>, ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`VS Code was not told the models changed within ${ms} ms`)), ms);
      const sub = h.provider.onDidChangeLanguageModelChatInformation(() => {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      });
    });
  }

  test('a cancelled listing is tried again and the models announced: the picker does not stay empty', async () => {
    const h = harness({ listingRetryDelaysMs: [20] });
    try {
      const source = new vscode.CancellationTokenSource();
      source.cancel(); // VS Code gave up on a listing the loaded machine answered too slowly
      const told = announced(h, 10000);
      assert.deepEqual(await h.provider.provideLanguageModelChatInformation({ silent: true }, source.token), []);
      await told;
      const models = await h.provider.provideLanguageModelChatInformation({ silent: true }, token());
      assert.ok(models.some((m) => m.id === 'eliza'), `models after the retry: ${models.map((m) => m.id)}`);
    } finally {
      await h.dispose();
    }
  });

  test('a listing that fails is tried again until parley answers, and VS Code keeps the models it had', async () => {
    let broken = false;
    const h = harness({
      listingRetryDelaysMs: [20, 40],
      locate: async () => {
        if (broken) throw new Error('parley is being reinstalled');
        return parleyBin();
      },
    });
    try {
      const before = await h.provider.provideLanguageModelChatInformation({ silent: true }, token());
      assert.ok(before.length > 0);
      const pid = h.backend.pid!;
      broken = true;
      process.kill(pid, 'SIGKILL');
      assert.ok(await gone(pid));
      const during = await h.provider.provideLanguageModelChatInformation({ silent: true }, token());
      assert.deepEqual(during.map((m) => m.id), before.map((m) => m.id), 'a failed listing gives VS Code the models it had, not none');
      assert.ok(h.log.lines.some((l) => l.includes('parley is being reinstalled')), h.log.lines.join('\n'));
      const told = announced(h, 10000);
      broken = false; // the retries find it again
      await told;
      assert.ok(h.backend.pid && h.backend.pid !== pid, 'the retry started the backend again');
    } finally {
      await h.dispose();
    }
  });

  test('a listing that fails before any succeeded answers none, then announces the models', async () => {
    let broken = true;
    const h = harness({
      listingRetryDelaysMs: [20],
      locate: async () => {
        if (broken) throw new Error('parley is not there yet');
        return parleyBin();
      },
    });
    try {
      assert.deepEqual(await h.provider.provideLanguageModelChatInformation({ silent: true }, token()), []);
      const told = announced(h, 10000);
      broken = false;
      await told;
      const models = await h.provider.provideLanguageModelChatInformation({ silent: true }, token());
      assert.ok(models.some((m) => m.id === 'eliza'));
    } finally {
      await h.dispose();
    }
  });
});
