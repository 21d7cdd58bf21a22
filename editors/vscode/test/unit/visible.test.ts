// The extension's visibility rule (src/visible.ts, a copy of the page's) against the cases
// the Go rule is tested with, and the chat showing the agent's text through it.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { TurnRenderer } from '../../src/render';
import { visible } from '../../src/visible';
import { MemoryLog } from './helpers';
import * as vscode from './vscode-mock';

const repo = path.resolve(__dirname, '../../../../..');
const cases: Array<{ name: string; in: string; want: string }> = JSON.parse(fs.readFileSync(path.join(repo, 'internal/toolui/testdata/visible.json'), 'utf8'));

test('visible agrees with toolui.SafeText on every shared case', () => {
  assert.ok(cases.length > 40, 'the shared cases are read');
  for (const c of cases) assert.equal(visible(c.in), c.want, c.name);
});

test("the agent's reply and a tool call's words show hidden characters by their code points", () => {
  const shown: string[] = [];
  const stream = {
    markdown: (v: string | vscode.MarkdownString) => shown.push(typeof v === 'string' ? v : v.value),
    progress: (v: string) => shown.push(v),
    push: () => {},
  };
  const r = new TurnRenderer(stream as unknown as import('vscode').ChatResponseStream, new MemoryLog(), false);
  r.text('run \u{E0041}\u{E0042} now \u26a0');
  r.text('\ufe0f and a\u200db \u202egnp');
  r.tool({ toolCallId: 'c', state: 'executing', title: 'Run \u2061x', toolName: 'execute', kind: 'execute' });
  const all = shown.join('');
  for (const want of ['run <U+E0041><U+E0042> now \u26a0\ufe0f', 'a<U+200D>b <U+202E>gnp', 'Run <U+2061>x']) {
    assert.ok(all.includes(want), `${JSON.stringify(want)} is not in ${JSON.stringify(all)}`);
  }
  for (const raw of ['\u{E0041}', '\u200d', '\u202e', '\u2061']) assert.ok(!all.includes(raw), `${JSON.stringify(raw)} reached the chat raw`);
});
