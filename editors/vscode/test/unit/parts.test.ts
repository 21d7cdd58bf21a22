// The pure pieces: VS Code parts on the wire, and the agent-action confirmation text.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { acpArgs, acpEnv } from '../../src/acpClient';
import { actionTitle, codeBlock, commandOf, confirmationMarkdown, confirmationText, filesOf, isApproval } from '../../src/agentAction';
import { toWireMessages, toWireToolMode, toWireTools } from '../../src/convert';
import { checkAgentServers } from '../../src/models';
import { MemoryLog } from './helpers';
import * as vscode from './vscode-mock';

const bytes = (s: string) => new TextEncoder().encode(s);

test('message parts on the wire: text, tool calls and results, data that is text; bookkeeping dropped', () => {
  const log = new MemoryLog();
  const wire = toWireMessages([
    new vscode.LanguageModelChatMessage(3 as never, [new vscode.LanguageModelTextPart('system words')]),
    vscode.LanguageModelChatMessage.User([
      new vscode.LanguageModelTextPart('look at '),
      new vscode.LanguageModelDataPart(bytes('{"a":1}'), 'application/json'),
      new vscode.LanguageModelDataPart(bytes('x'), 'cache_control'),
      new vscode.LanguageModelDataPart(bytes('\x89PNG'), 'image/png'),
    ]),
    vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelToolCallPart('c1', 'read', { path: 'a' })]),
    vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart('c1', [new vscode.LanguageModelTextPart('data'), new vscode.LanguageModelDataPart(bytes('zz'), 'image/png')])]),
  ] as never, log);
  assert.deepEqual(wire, [
    { role: 'user', content: [{ type: 'text', value: 'system words' }] },
    { role: 'user', content: [{ type: 'text', value: 'look at ' }, { type: 'text', value: '{"a":1}' }] },
    { role: 'assistant', content: [{ type: 'tool_call', toolCallId: 'c1', toolName: 'read', parameters: { path: 'a' } }] },
    { role: 'user', content: [{ type: 'tool_result', toolCallId: 'c1', result: [{ value: 'data' }, { value: '[image/png, 2 bytes, not shown]' }] }] },
  ]);
  assert.ok(log.lines.some((l) => l.includes('image/png')), 'what was left out is logged');
  assert.ok(!log.lines.some((l) => l.includes('cache_control')), 'bookkeeping is dropped silently');
});

test("a skipped agent action's result: as it is to a backend that refuses it, else left out", () => {
  const messages = [
    vscode.LanguageModelChatMessage.User('request permission deploy'),
    vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelToolCallPart('p1', 'parley-agent-action', { title: 'deploy' })]),
    vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart('p1', [new vscode.LanguageModelTextPart('The user chose to skip the tool call')])]),
  ] as never;
  const skipped = { role: 'user', content: [{ type: 'tool_result', toolCallId: 'p1', result: [{ value: 'The user chose to skip the tool call' }] }] };
  assert.deepEqual(toWireMessages(messages, new MemoryLog(), { refusesUnapproved: true })[2], skipped);
  const log = new MemoryLog();
  const old = toWireMessages(messages, log);
  assert.equal(old.length, 2, 'an older backend would take any result as the approval');
  assert.ok(log.lines.some((l) => l.includes('was not approved')));
});

test('tools and tool mode on the wire', () => {
  assert.deepEqual(toWireTools([{ name: 'a', description: 'A', inputSchema: undefined }]), [{ name: 'a', description: 'A', inputSchema: {} }]);
  assert.equal(toWireToolMode(vscode.LanguageModelChatToolMode.Required as never), 'required');
  assert.equal(toWireToolMode(undefined), 'auto');
});

test('only the tool\'s own approval counts as one', () => {
  assert.ok(isApproval([{ value: 'Approved' }]));
  assert.ok(!isApproval([{ value: 'The user chose to skip the tool call' }]));
  assert.ok(!isApproval([{ value: 'Approved' }, { value: 'and more' }]));
  assert.ok(!isApproval('Approved'));
});

test('the confirmation shows what will run, and the agent cannot break out of it', () => {
  assert.equal(commandOf({ command: ['rm', '-rf', 'my dir'] }), "rm -rf 'my dir'");
  assert.equal(commandOf({ command: 'make test' }), 'make test');
  assert.deepEqual(filesOf({ path: 'a.go', locations: [{ path: 'b.go' }, { path: 'a.go' }] }), ['a.go', 'b.go']);
  const sneaky = 'ls\n```\n**Approved by your admin**\n```';
  const block = codeBlock(sneaky, 'sh');
  assert.ok(block.startsWith('````sh\n') && block.endsWith('\n````\n'), block);
  const md = confirmationMarkdown({ title: 'run **tests**', kind: 'execute', raw_input: { command: sneaky, description: 'Runs [x](command:evil)' } }).value;
  assert.match(md, /Allow the agent to \*\*run \\\*\\\*tests\\\*\\\*\*\*\?/);
  assert.match(md, /Kind: execute/);
  assert.ok(md.includes(block));
  assert.ok(md.includes('\\[x\\]\\(command:evil\\)'), 'the description is text, not a link');
});

test('the agentServers setting: good entries kept, bad ones named', () => {
  const { servers, problems } = checkAgentServers({ ok: { command: 'a', args: ['b'], env: { K: 'V' } }, bad: { args: [] }, worse: 3 });
  assert.deepEqual(Object.keys(servers), ['ok']);
  assert.equal(problems.length, 2);
  assert.match(problems[0], /parley\.agentServers\.bad/);
});

test('the confirmation shows the hidden characters of the agent request by their code points', () => {
  const input = {
    title: 'open \u202egnp.exe',
    kind: 'exe\u00adcute',
    raw_input: { command: 'rm\u200b -rf \u009b2J', path: 'a\u{E0041}.go', description: 'Harmless\u{E0042}\u{E0043}' },
  };
  const md = confirmationMarkdown(input).value;
  const text = confirmationText(input); // the dialog's detail; its message is actionTitle's
  for (const shown of ['exe<U+00AD>cute', 'rm<U+200B> -rf <U+009B>2J', 'a<U+E0041>.go', 'Harmless<U+E0042><U+E0043>']) {
    assert.ok(text.includes(shown), `${shown} not in the dialog text ${JSON.stringify(text)}`);
  }
  const plain = md.replace(/\\/g, ''); // appendText escapes Markdown's characters
  for (const shown of ['<U+202E>gnp.exe', 'exe<U+00AD>cute', 'rm<U+200B> -rf <U+009B>2J', 'a<U+E0041>.go', 'Harmless<U+E0042><U+E0043>']) {
    assert.ok(plain.includes(shown), `${shown} not in the confirmation ${JSON.stringify(md)}`);
  }
  assert.equal(actionTitle(input), 'open <U+202E>gnp.exe');
  assert.ok(!/[\u202e\u00ad\u200b\u009b]|[\u{E0000}-\u{E007F}]/u.test(md + text), `a hidden character reached the confirmation: ${JSON.stringify(md + text)}`);
});

test("parley acp's command line and environment: the agentServers setting's agents in PARLEY_AGENT_SERVERS, never in argv", () => {
  assert.deepEqual(acpArgs(['--log', 'warn'], '/ws', 'eliza'), ['--log', 'warn', 'acp', '--cwd', '/ws', '--agent', 'eliza']);
  const servers = { mine: { command: 'my-agent', args: ['--acp'], env: { K: 'V' } } };
  const env = acpEnv({ PATH: '/bin', PARLEY_AGENT_SERVERS: 'stale' }, servers);
  assert.deepEqual(JSON.parse(env.PARLEY_AGENT_SERVERS ?? ''), servers);
  assert.equal(env.PATH, '/bin');
  assert.equal(acpEnv({ PARLEY_AGENT_SERVERS: 'stale' }).PARLEY_AGENT_SERVERS, undefined);
});
