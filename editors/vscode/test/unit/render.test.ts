// How a tool call's states are shown: VS Code's tool entries, and the Markdown fallback.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TurnRenderer } from '../../src/render';
import type { ToolInvocation } from '../../src/wire';
import { MemoryLog } from './helpers';
import * as vscode from './vscode-mock';

class Stream {
  calls: Array<{ kind: string; value: any }> = [];
  constructor(private readonly acceptParts = true) {}
  markdown(v: string | vscode.MarkdownString) {
    this.calls.push({ kind: 'markdown', value: typeof v === 'string' ? v : v.value });
  }
  progress(v: string) {
    this.calls.push({ kind: 'progress', value: v });
  }
  push(part: unknown) {
    if (!this.acceptParts) throw new Error('CANNOT use API proposal');
    this.calls.push({ kind: 'push', value: { ...(part as object) } });
  }
}

const call = (over: Partial<ToolInvocation>): ToolInvocation => ({
  toolCallId: 'c1', state: 'executing', title: 'Run the tests', toolName: 'execute', kind: 'execute',
  invocationMessage: 'Running the tests', pastTenseMessage: 'Ran the tests', ...over,
});

function render(parts: ToolInvocation[], acceptParts = true): Stream {
  const s = new Stream(acceptParts);
  const r = new TurnRenderer(s as never, new MemoryLog(), true);
  for (const p of parts) r.tool(p);
  return s;
}

test('a failed terminal call: error state, its command line and output', () => {
  const s = render([
    call({ terminalCommand: 'make test' }),
    call({ state: 'completed', isError: true, errorMessage: 'exit status 2', terminalCommand: 'make test', content: 'FAIL foo' }),
  ]);
  const last = s.calls.at(-1)!.value;
  assert.equal(last.isComplete, true);
  assert.equal(last.isError, true);
  assert.match(last.pastTenseMessage.value, /Failed: Run the tests \\\(exit status 2\\\)/); // shown as text: escaped
  assert.deepEqual(last.toolSpecificData, { commandLine: { original: 'make test' }, language: 'sh', output: { text: 'FAIL foo' } });
});

test('a sub-agent call names its parent; hidden calls are not shown', () => {
  const s = render([
    call({ toolCallId: 'child', parentId: 'task-1', state: 'completed' }),
    call({ toolCallId: 'secret', presentation: 'hidden', state: 'completed' }),
  ]);
  assert.equal(s.calls.length, 1);
  assert.equal(s.calls[0].value.subAgentInvocationId, 'task-1');
});

test('hidden after complete: a progress line while it runs, nothing after', () => {
  const s = render([call({ presentation: 'hiddenAfterComplete' }), call({ presentation: 'hiddenAfterComplete', state: 'completed' })]);
  assert.deepEqual(s.calls, [{ kind: 'progress', value: 'Running the tests' }]);
});

test('fallback: one progress line per running call, one Markdown line when it ends', () => {
  const s = render([
    call({}),
    call({ state: 'executing' }),
    call({ state: 'completed', isError: true, errorMessage: 'boom', terminalCommand: 'make test' }),
    call({ toolCallId: 'c2', state: 'cancelled' }),
    call({ toolCallId: 'c3', parentId: 'c1', state: 'completed' }),
  ], false);
  assert.deepEqual(s.calls.filter((c) => c.kind === 'progress').map((c) => c.value), ['Running the tests']);
  const md = s.calls.filter((c) => c.kind === 'markdown').map((c) => c.value);
  assert.equal(md.length, 3);
  assert.match(md[0], /✗ Failed: Run the tests \\\(boom\\\)/);
  assert.match(md[0], /```sh\nmake test\n```/);
  assert.match(md[1], /⊘ Cancelled: Run the tests/);
  assert.match(md[2], /^\n\n {4}✓ Ran the tests/);
});
