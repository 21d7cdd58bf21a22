// What @parley shows beyond the reply, against the real `parley acp` with Eliza's
// test commands: usage after a turn, the files a turn changed with their diff and undo,
// the agent's questions, its settings, and a sign-in.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { registerChatCommands } from '../../src/chatCommands';
import { ParleyParticipant, PARTICIPANT_ID, usageLine, type TurnMetadata } from '../../src/participant';
import { checkTyped } from '../../src/questions';
import { showChanges } from '../../src/review';
import { showSignIn, signIn, SIGN_IN_COMMAND, type SignInArgs } from '../../src/signin';
import { acpHarness, agentPids, parleyBin } from './helpers';
import * as vscode from './vscode-mock';

/** A ChatResponseStream that records the Markdown and the buttons. */
class Stream {
  md: string[] = [];
  buttons: Array<{ command: string; title: string; arguments?: unknown[] }> = [];
  markdown(v: string | vscode.MarkdownString) {
    this.md.push(typeof v === 'string' ? v : v.value);
  }
  progress() {}
  push() {}
  button(b: { command: string; title: string; arguments?: unknown[] }) {
    this.buttons.push(b);
  }
  text(): string {
    return this.md.join('').replace(/\\(.)/g, '$1'); // the Markdown escapes undone
  }
  button_(title: RegExp) {
    const b = this.buttons.find((x) => title.test(x.title));
    assert.ok(b, `no button ${title} among ${JSON.stringify(this.buttons.map((x) => x.title))}`);
    return b;
  }
}

describe('@parley beyond the reply', () => {
  const h = acpHarness();
  const workspace = h.workspace;
  const participant = new ParleyParticipant({
    acp: h.acp,
    log: h.log,
    defaultAgent: () => 'eliza',
    agentActionTool: () => ({ name: 'parley-agent-action', description: 'Request permission', inputSchema: { type: 'object' } }),
    useProposedApi: () => false,
    onChosen: () => undefined,
  });
  const commands = registerChatCommands({ acp: h.acp, log: h.log, parleyPath: async () => parleyBin() });
  before(() => {
    vscode.mock.workspaceFolders = [{ uri: vscode.Uri.file(workspace), name: 'ws', index: 0 }];
  });
  after(async () => {
    vscode.mock.workspaceFolders = undefined;
    for (const c of commands) c.dispose();
    await h.dispose();
  });
  beforeEach(() => {
    vscode.mock.messages = [];
    vscode.mock.executed = [];
    vscode.mock.answer = () => undefined;
  });

  /** One chat: each run sends a message with the history of the ones before. */
  const chat = () => {
    const history: unknown[] = [];
    return async (prompt: string, command?: string) => {
      const stream = new Stream();
      const req = { prompt, command, references: [], toolReferences: [], toolInvocationToken: {}, model: { vendor: 'parley', id: 'eliza' } };
      const result = (await participant.handle(req as never, { history } as never, stream as never, new vscode.CancellationTokenSource().token as never)) as vscode.ChatResponseTurn['result'];
      history.push(new vscode.ChatRequestTurn(prompt, command, [], PARTICIPANT_ID), new vscode.ChatResponseTurn([new vscode.ChatResponseMarkdownPart(stream.text())], result, PARTICIPANT_ID));
      return { stream, result };
    };
  };
  const run = (id: string, ...args: unknown[]) => vscode.commands.executeCommand(id, ...args);

  test('usage after each turn', async () => {
    const { stream, result } = await chat()('report usage');
    assert.match(stream.text(), /Usage: context 1,200 of 200,000 tokens · \$0\.02 so far · this turn 1,000 in, 200 out/);
    assert.ok((result.metadata as unknown as TurnMetadata).parley.sessionId, 'the turn names its session');
    assert.equal(usageLine(undefined), undefined);
  });

  test('the files a turn changed: the diff in the diff editor, and undo', async () => {
    const send = chat();
    const file = path.join(workspace, 'notes.txt');
    const { stream } = await send('write file notes.txt with hello there');
    assert.match(stream.text(), /Files changed\*\* by this turn \(1\):\s+- created notes\.txt \(\+1 −0\)/);
    await run(stream.button_(/^Diff notes\.txt$/).command, ...stream.button_(/^Diff notes\.txt$/).arguments!);
    const diff = vscode.mock.executed.find((e) => e.id === 'vscode.diff');
    assert.ok(diff, 'vscode.diff was opened');
    const [left, right, title] = diff.args as [vscode.Uri, vscode.Uri, string];
    const docs = vscode.mock.contentProviders.get(left.scheme)!;
    assert.equal(docs.provideTextDocumentContent(left), '');
    assert.equal(docs.provideTextDocumentContent(right), 'hello there\n');
    assert.match(title, /notes\.txt: turn \d+/);

    const undoButton = stream.button_(/^Undo notes\.txt$/);
    await run(undoButton.command, ...undoButton.arguments!);
    assert.ok(!fs.existsSync(file), 'the undo deleted the file the turn created');
    assert.match(vscode.mock.messages.at(-1)!.text, /undid turn \d+: notes\.txt deleted/);

    // Written again, then changed by hand: the undo refuses, and offers the difference.
    const again = await send('write file notes.txt with second time');
    fs.writeFileSync(file, 'my own words\n');
    vscode.mock.answer = (_kind, _text, _options, items) => items.find((i) => i === 'Show the Difference');
    vscode.mock.executed = [];
    const b = again.stream.button_(/^Undo notes\.txt$/);
    await run(b.command, ...b.arguments!);
    assert.equal(fs.readFileSync(file, 'utf8'), 'my own words\n', 'the hand edit is never overwritten');
    // parley says which file stopped the undo (its conflict error, with the files), and
    // the user's choice shows how the file changed since the turn.
    const refusal = vscode.mock.messages.find((m) => m.kind === 'warning' || m.kind === 'error');
    assert.equal(refusal?.kind, 'warning', JSON.stringify(vscode.mock.messages));
    assert.match(refusal!.text, /nothing was undone: notes\.txt \(/);
    const since = vscode.mock.executed.find((e) => e.id === 'vscode.diff');
    assert.ok(since, 'the difference was shown');
    const [l, r, t] = since.args as [vscode.Uri, vscode.Uri, string];
    assert.equal(docs.provideTextDocumentContent(l), 'second time\n');
    assert.equal(docs.provideTextDocumentContent(r), 'my own words\n');
    assert.match(t, /notes\.txt: what changed since turn \d+/);
  });

  test('a change that makes git run code is flagged; a mode change is shown', async () => {
    execFileSync('git', ['init', '-q', workspace]);
    fs.mkdirSync(path.join(workspace, '.git', 'hooks'), { recursive: true });
    const { stream } = await chat()('write file .git/hooks/pre-commit with echo from the agent');
    const text = stream.text();
    assert.match(text, /⚠️ \*\*1 change makes git run code\*\*: look at it before running git here/);
    assert.match(text, /- created \.git\/hooks\/pre-commit \(\+1 −0\) — ⚠️ \*\*makes git run code: a git hook: git runs it\*\*/);

    // A mode alone (the backend's record of `chmod +x`): +0 −0 and the mode, named again in
    // the diff editor's title; an agent's reason is made visible like all its text.
    const shown = new Stream();
    showChanges(shown as never, 'c1', [{ number: 7, label: 'chmod', files: [
      { path: path.join(workspace, 'run.sh'), rel: 'run.sh', kind: 'M', added: 0, removed: 0, status: 'pending', undoable: true, mode: '644 → 755' },
      { path: path.join(workspace, '.git', 'config'), rel: '.git/config', kind: 'M', added: 1, removed: 0, status: 'pending', undoable: true, runsCode: 'sets core.fsmonitor\u202e' },
    ] }]);
    assert.match(shown.text(), /- changed run\.sh \(\+0 −0\) mode 644 → 755\n/);
    assert.match(shown.text(), /makes git run code: sets core\.fsmonitor<U\+202E>/);
    assert.doesNotMatch(shown.text(), /run\.sh[^\n]*git run code/, 'a mode change is no hook');
    assert.deepEqual(shown.button_(/^Diff run\.sh$/).arguments, [{ sessionId: 'c1', path: path.join(workspace, 'run.sh'), turn: 7, mode: '644 → 755' }]);
  });

  test("the agent's question, asked field by field; a refused answer is asked again", async () => {
    const asked: string[] = [];
    // The first name is blank, which the input box's check would refuse in VS Code: the
    // field is left out, the backend refuses the form (the name is required), and the
    // user is asked again.
    const names = ['   ', 'Ada'];
    vscode.mock.inputBox = async (o) => {
      asked.push(`input: ${o.prompt}`);
      const v = names.shift()!;
      assert.equal(o.validateInput?.(v), v.trim() === '' ? 'An answer is required.' : undefined);
      return v;
    };
    vscode.mock.quickPick = async (items, o) => {
      const placeHolder = String((o as { placeHolder?: string }).placeHolder);
      asked.push(`pick: ${placeHolder}`);
      const list = items as Array<{ label: string; value: unknown }>;
      return placeHolder.startsWith('Favourite colour') ? list.find((i) => i.label === 'Green') : list.find((i) => i.label === 'Yes');
    };
    const { stream } = await chat()('ask me about tests');
    assert.match(stream.text(), /eliza asks:\*\* A few questions about tests/);
    assert.match(stream.text(), /you answered: color="green", name="Ada", subscribe=true/);
    assert.equal(asked.filter((a) => a.startsWith('input: Your name')).length, 2, JSON.stringify(asked));
    assert.match(asked[asked.length - 3] ?? '', /Your name.*required/i, 'the second time says why the first was refused');
    assert.ok(vscode.mock.messages.some((m) => m.kind === 'error' && /name/i.test(m.text)), 'the refusal was shown');
    assert.equal(checkTyped({ name: 'n', title: 'N', kind: 'integer', required: true }, '1.5'), 'A whole number is needed.');
  });

  test('dismissing the question cancels it, and the turn goes on', async () => {
    vscode.mock.inputBox = async () => undefined;
    vscode.mock.quickPick = async () => undefined;
    const { stream } = await chat()('ask me about tests');
    assert.match(stream.text(), /you chose to cancel/);
  });

  test('/config lists the settings, a button changes one, and /config ID VALUE sets one', async () => {
    const send = chat();
    await send('offer settings');
    const listed = await send('', 'config');
    assert.match(listed.stream.text(), /\*\*Mood\*\*: Calm/);
    assert.match(listed.stream.text(), /\*\*Verbose\*\*: off/);
    vscode.mock.quickPick = async (items) => (items as Array<{ label: string }>).find((i) => i.label === 'Cheerful');
    const change = listed.stream.button_(/^Change Mood$/);
    await run(change.command, ...change.arguments!);
    assert.match(vscode.mock.messages.at(-1)!.text, /Mood is now Cheerful/);
    const set = await send('verbose true', 'config');
    assert.match(set.stream.text(), /Verbose is now on/);
    const shown = await send('show settings');
    assert.match(shown.stream.text(), /settings: mood=cheerful, verbose=true/);
    const bad = await send('mood furious', 'config');
    assert.match(String((bad.result.errorDetails as { message?: string } | undefined)?.message), /takes no value "furious"; its values: calm, cheerful, gloomy/);
  });

  test('/config before any message says to send one', async () => {
    const { stream } = await chat()('', 'config');
    assert.match(stream.text(), /send it a message first/);
  });

  test('a sign-in: a button per method; a terminal one runs parley login in a terminal', async () => {
    const stream = new Stream();
    showSignIn(stream as never, 's1', 'eliza', { sessionId: 's1', agent: 'Eliza', methods: [
      { id: 'token', name: 'Token', kind: 'terminal', command: ['eliza-login'] },
      { id: 'bad', name: 'Bad', kind: 'env_var', command: [], refused: 'it sets LD_PRELOAD' },
    ] });
    assert.match(stream.text(), /Bad: parley will not sign in with it: it sets LD_PRELOAD/);
    assert.equal(stream.buttons.length, 1, 'no button for a method parley refuses');
    const b = stream.button_(/^Sign in: Token$/);
    assert.equal(b.command, SIGN_IN_COMMAND);
    vscode.mock.terminals = [];
    const done = signIn(h.acp, h.log, async () => parleyBin(), b.arguments![0] as SignInArgs);
    await new Promise((r) => setImmediate(r));
    const term = vscode.mock.terminals.at(-1)!;
    assert.equal(term.shellPath, parleyBin());
    assert.deepEqual(term.shellArgs, ['login', '--agent', 'eliza', '--method', 'token']);
    assert.ok(term.shown);
    term.exitStatus = { code: 0 };
    vscode.mock.closeTerminal(term);
    assert.equal(await done, true);
    assert.match(vscode.mock.messages.at(-1)!.text, /signed in/);
  });

  test("after a sign-in in a terminal, the chat's next message goes to a new process of the agent", async () => {
    // Another chat keeps the agent's process running when the chat of the sign-in closes.
    await chat()('hello');
    const send = chat();
    const first = await send('I am worried about my tests');
    const sessionId = (first.result.metadata as unknown as TurnMetadata).parley.sessionId!;
    const before = agentPids(h.acp.pid!);
    assert.ok(before.length > 0, "Eliza runs under parley acp");
    vscode.mock.terminals = [];
    const method = { id: 'token', name: 'Token', kind: 'terminal', command: ['eliza-login'] };
    const done = signIn(h.acp, h.log, async () => parleyBin(), { sessionId, agent: 'eliza', method });
    await new Promise((r) => setImmediate(r));
    const term = vscode.mock.terminals.at(-1)!;
    term.exitStatus = { code: 0 };
    vscode.mock.closeTerminal(term);
    assert.equal(await done, true);
    assert.equal(h.acp.holds(sessionId), false, 'the session of the sign-in is closed');
    const next = await send('I am worried about my tests');
    assert.equal(next.result.errorDetails, undefined, JSON.stringify(next.result.errorDetails));
    assert.match(next.stream.text(), /worried about your tests/);
    const after = agentPids(h.acp.pid!);
    assert.ok(after.some((p) => !before.includes(p)), `a new Eliza process: before ${before}, after ${after}`);
  });
});
