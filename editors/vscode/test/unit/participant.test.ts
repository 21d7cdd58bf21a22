// The @parley participant against the real `parley acp`, with Eliza's test commands.

import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { AgentActionTool } from '../../src/agentAction';
import { ParleyParticipant, PARTICIPANT_ID, type TurnMetadata } from '../../src/participant';
import { acpHarness, parleyBin } from './helpers';
import * as vscode from './vscode-mock';

/** A ChatResponseStream that records what the participant shows. */
class StreamRecorder {
  calls: Array<{ kind: string; value: unknown }> = [];
  proposed = true;
  markdown(value: string | vscode.MarkdownString) {
    this.calls.push({ kind: 'markdown', value: typeof value === 'string' ? value : value.value });
  }
  progress(value: string) {
    this.calls.push({ kind: 'progress', value });
  }
  push(part: unknown) {
    if (part instanceof vscode.ChatToolInvocationPart && !this.proposed) throw new Error("Extension 'parley-acp.parley' CANNOT use API proposal: chatParticipantAdditions");
    // The part is pushed again with new state: keep a copy of each push.
    this.calls.push({ kind: 'push', value: Object.assign(Object.create(Object.getPrototypeOf(part)), part) });
  }
  thinkingProgress(p: { text: string }) {
    if (!this.proposed) throw new Error('CANNOT use API proposal');
    this.calls.push({ kind: 'thinking', value: p.text });
  }
  text(): string {
    return this.calls.filter((c) => c.kind === 'markdown').map((c) => String(c.value)).join('');
  }
  of<T>(kind: string): T[] {
    return this.calls.filter((c) => c.kind === kind).map((c) => c.value as T);
  }
}

const agentActionDef = { name: 'parley-agent-action', description: 'Request permission', inputSchema: { type: 'object' } };

describe('@parley participant', () => {
  const h = acpHarness();
  after(() => h.dispose());
  let useProposed = true;
  const participant = new ParleyParticipant({
    acp: h.acp,
    log: h.log,
    defaultAgent: () => 'eliza',
    agentActionTool: () => agentActionDef,
    useProposedApi: () => useProposed,
    onChosen: () => undefined,
  });
  let confirmations: string[] = [];
  let answer: 'allow' | 'deny' | 'skip' = 'allow';
  beforeEach(() => {
    useProposed = true;
    confirmations = [];
    answer = 'allow';
    // VS Code's invokeTool for our tool: show the confirmation, then run it or not.
    vscode.mock.invokeTool = async (name: string, options: unknown) => {
      assert.equal(name, 'parley-agent-action');
      const tool = new AgentActionTool();
      const { input, toolInvocationToken } = options as { input: never; toolInvocationToken: unknown };
      assert.ok(toolInvocationToken, 'the chat request token is passed, so VS Code asks in the chat');
      const prepared = tool.prepareInvocation({ input });
      confirmations.push((prepared.confirmationMessages!.message as unknown as vscode.MarkdownString).value);
      if (answer === 'deny') throw new vscode.CancellationError();
      if (answer === 'skip') return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart('The user chose to skip the tool call, they want to proceed without running it')]);
      return tool.invoke() as unknown as vscode.LanguageModelToolResult;
    };
  });

  const request = (prompt: string) => ({
    prompt,
    command: undefined,
    references: [],
    toolReferences: [],
    toolInvocationToken: { chat: 'token' },
    model: { vendor: 'parley', id: 'eliza' },
  });
  const run = async (prompt: string, history: unknown[] = [], stream = new StreamRecorder()) => {
    const token = new vscode.CancellationTokenSource().token;
    const result = await participant.handle(request(prompt) as never, { history } as never, stream as never, token as never);
    return { stream, result };
  };
  /** The history VS Code keeps: the request turn and the response turn with its result. */
  const turns = (prompt: string, r: { stream: StreamRecorder; result: unknown }) => [
    new vscode.ChatRequestTurn(prompt, undefined, [], PARTICIPANT_ID),
    new vscode.ChatResponseTurn([new vscode.ChatResponseMarkdownPart(r.stream.text())], r.result as never, PARTICIPANT_ID),
  ];

  test('streams the agent reply', async () => {
    const { stream, result } = await run('slowly one two three');
    assert.equal(stream.text().replace(/\s+/g, ' ').trim(), 'one two three');
    assert.ok(stream.of('markdown').length >= 2, 'the words come as they are said');
    assert.equal((result as { errorDetails?: unknown }).errorDetails, undefined);
  });

  test('shows a tool call as a ChatToolInvocationPart, updated in place to its past-tense message', async () => {
    const { stream } = await run('think it over\ntool call Build the project');
    const parts = stream.of<vscode.ChatToolInvocationPart & { enablePartialUpdate?: boolean }>('push');
    assert.ok(parts.length >= 2, `${parts.length} pushes; want the call's states`);
    assert.ok(parts.every((p) => p.toolCallId === parts[0].toolCallId && p.enablePartialUpdate), 'one call, updated in place');
    assert.equal(parts[0].isComplete, false);
    assert.match((parts[0].invocationMessage as vscode.MarkdownString).value, /Building the project/);
    const last = parts.at(-1)!;
    assert.equal(last.isComplete, true);
    assert.match((last.pastTenseMessage as vscode.MarkdownString).value, /Built the project/);
    assert.deepEqual(stream.of('thinking'), ['it over']);
    assert.match(stream.text(), /tool call Build the project: completed/);
  });

  test('VS Code refusing thinking parts does not switch off tool entries', async () => {
    const stream = new StreamRecorder();
    stream.thinkingProgress = () => {
      throw new Error('CANNOT use API proposal: chatParticipantAdditions');
    };
    await run('think it over\ntool call Build the project', [], stream);
    assert.ok(stream.of<string>('progress').includes('Thinking…'));
    assert.ok(stream.of('push').length >= 2, 'the tool call is still a tool entry');
  });

  test('without the proposed API: progress while running, Markdown when done', async () => {
    const stream = new StreamRecorder();
    stream.proposed = false;
    await run('tool call Build the project', [], stream);
    assert.ok(stream.of<string>('progress').includes('Building the project'));
    assert.match(stream.text(), /✓ Built the project/);
    assert.ok(h.log.lines.some((l) => l.includes('refuses the proposed ChatToolInvocationPart')));
  });

  test('a permission confirmed in the chat: the agent gets allow_once', async () => {
    const { stream, result } = await run('request permission deploy the site');
    assert.equal(confirmations.length, 1);
    assert.match(confirmations[0], /Allow the agent to \*\*deploy the site\*\*\?/);
    assert.match(stream.text(), /permission: allow_once/);
    const meta = (result as { metadata: TurnMetadata }).metadata.parley;
    assert.equal(meta.agent, 'eliza');
    assert.ok(h.acp.holds(meta.sessionId!), 'the turn names the ACP session parley acp holds');
  });

  for (const how of ['deny', 'skip'] as const) {
    test(`a permission declined in the chat (${how}): never allowed, and the next message is answered`, async () => {
      answer = how;
      const first = await run('request permission delete the repository');
      assert.equal(confirmations.length, 1);
      assert.match(first.stream.text(), /Declined/);
      assert.doesNotMatch(first.stream.text(), /allow_once/);
      assert.match(first.stream.text(), /permission: reject_once/, 'the agent is told no');
      const second = await run('slowly carry on', turns('request permission delete the repository', first));
      assert.equal(second.stream.text().trim(), 'carry on');
    });
  }

  test('stopping a turn: the reply ends where it was, and the next turn is answered on its own', async () => {
    const source = new vscode.CancellationTokenSource();
    const stream = new StreamRecorder();
    const firstWords = new Promise<void>((resolve) => {
      const md = stream.markdown.bind(stream);
      stream.markdown = (v) => (md(v), resolve());
    });
    const pending = participant.handle(request('slowly ' + 'tick '.repeat(200)) as never, { history: [] } as never, stream as never, source.token as never);
    await firstWords;
    source.cancel();
    const result = (await pending) as { metadata: TurnMetadata; errorDetails?: unknown };
    assert.equal(result.errorDetails, undefined, 'a stop is not an error');
    assert.ok(stream.text().includes('tick') && !stream.text().includes('tick '.repeat(200).trim()), 'the reply ends where it was');
    const next = await run('slowly after the stop', turns('slowly ' + 'tick '.repeat(200), { stream, result }));
    assert.equal(next.stream.text().trim(), 'after the stop');
  });

  test('the next turn goes on in the same ACP session', async () => {
    const first = await run('request permission deploy');
    const second = await run('tool call Check the deploy', turns('request permission deploy', first));
    assert.match(second.stream.text(), /tool call Check the deploy: completed/);
    const id = (r: { result: unknown }) => (r.result as { metadata: TurnMetadata }).metadata.parley.sessionId;
    assert.equal(id(second), id(first));
    assert.ok(!second.stream.text().includes('allow_once'), 'the earlier turn is not replayed');
  });

  test('a chat whose session parley acp no longer has goes on in a new one, given the chat so far', async () => {
    const first = await run('slowly before the restart');
    await h.acp.restart();
    const second = await run('slowly after the restart', turns('slowly before the restart', first));
    // Eliza reads the chat so far (the Doctor answers it) before the new message.
    assert.match(second.stream.text(), /\S[\s\S]*\nafter the restart$/);
    const id = (r: { result: unknown }) => (r.result as { metadata: TurnMetadata }).metadata.parley.sessionId;
    assert.notEqual(id(second), id(first));
    assert.ok(h.acp.holds(id(second)!), 'the new session is named for the next turn');
    assert.ok(h.log.lines.some((l) => l.includes('a new one starts with the chat so far')), h.log.lines.join('\n'));
  });

  test('a model that is not parley\'s: the parley.chat.agent setting chooses', async () => {
    const token = new vscode.CancellationTokenSource().token;
    const stream = new StreamRecorder();
    const req = { ...request('slowly via the setting'), model: { vendor: 'copilot', id: 'gpt' } };
    await participant.handle(req as never, { history: [] } as never, stream as never, token as never);
    assert.equal(stream.text().trim(), 'via the setting');
  });
});

// An agent only in the parley.agentServers setting (Eliza's command under another name):
// parley acp is started knowing it, so @parley with its model talks to it.
describe('@parley with an agent of the agentServers setting', () => {
  const h = acpHarness({ agentServers: { 'my-eliza': { command: parleyBin(), args: ['eliza'], env: {} } } });
  after(() => h.dispose());
  const participant = new ParleyParticipant({
    acp: h.acp,
    log: h.log,
    defaultAgent: () => 'eliza',
    agentActionTool: () => agentActionDef,
    useProposedApi: () => true,
    onChosen: () => undefined,
  });

  test('a chat with its model runs it', async () => {
    const stream = new StreamRecorder();
    const req = { prompt: 'slowly one two three', command: undefined, references: [], toolReferences: [], toolInvocationToken: {}, model: { vendor: 'parley', id: 'my-eliza' } };
    const result = (await participant.handle(req as never, { history: [] } as never, stream as never, new vscode.CancellationTokenSource().token as never)) as { errorDetails?: { message?: string }; metadata?: unknown };
    assert.equal(result.errorDetails, undefined, JSON.stringify(result.errorDetails));
    assert.equal(stream.text().replace(/\s+/g, ' ').trim(), 'one two three');
    assert.equal((result.metadata as TurnMetadata).parley.agent, 'my-eliza');
  });
});
