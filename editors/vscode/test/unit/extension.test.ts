// The extension as VS Code activates it: what it registers, the backend it starts, the
// agent it asks the backend to get ready, its commands, and deactivation.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { activate, deactivate } from '../../src/extension';
import type { ParleyChatProvider } from '../../src/provider';
import { childBackends, gone, isolatedEnv, noTools, parleyBin, Recorder, user } from './helpers';
import * as vscode from './vscode-mock';

const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-vscode-trace-'));
const state = new Map<string, unknown>();
const context = {
  subscriptions: [] as Array<{ dispose(): unknown }>,
  workspaceState: { get: (k: string) => state.get(k), update: async (k: string, v: unknown) => void state.set(k, v) },
  extension: { packageJSON: JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) },
};
const token = () => new vscode.CancellationTokenSource().token;

/** The notifications and requests the backends got, from their traces. */
function traced(method: string): unknown[] {
  const found: unknown[] = [];
  for (const f of fs.readdirSync(traceDir)) {
    for (const m of fs.readFileSync(path.join(traceDir, f), 'utf8').matchAll(/ recv (\{.*\})$/gm)) {
      const msg = JSON.parse(m[1]);
      if (msg.method === method) found.push(msg.params);
    }
  }
  return found;
}

before(() => {
  Object.assign(process.env, isolatedEnv()); // the backend inherits the extension host's environment
  vscode.mock.configuration = { 'parley.path': parleyBin(), 'parley.traceDir': traceDir, 'parley.logLevel': 'debug' };
  vscode.mock.workspaceFolders = [{ uri: vscode.Uri.file(os.tmpdir()), name: 'tmp', index: 0 }];
  activate(context as never);
});
after(async () => {
  await deactivate();
  fs.rmSync(process.env.HOME!, { recursive: true, force: true });
  fs.rmSync(traceDir, { recursive: true, force: true });
});

test('registers the provider, the agent-action tool, @parley and the commands', () => {
  assert.ok(vscode.mock.providers.has('parley'));
  assert.ok(vscode.mock.tools.has('parley-agent-action'));
  assert.ok(vscode.mock.participants.has('parley.agent'));
  assert.ok(vscode.mock.commands.has('parley.restartBackend'));
  assert.ok(vscode.mock.commands.has('parley.showLog'));
  const contributes = context.extension.packageJSON.contributes;
  assert.deepEqual(contributes.languageModelChatProviders.map((p: { vendor: string }) => p.vendor), ['parley']);
  assert.deepEqual(contributes.chatParticipants.map((p: { id: string }) => p.id), ['parley.agent']);
});

test('asks the backend once to get the last chosen agent ready, with the workspace as its cwd', async () => {
  const provider = vscode.mock.providers.get('parley') as ParleyChatProvider;
  const models = await provider.provideLanguageModelChatInformation({ silent: true }, token());
  assert.equal(traced('lm/prepareSession').length, 0, 'nothing chosen yet: nothing prepared');
  const eliza = models.find((m) => m.id === 'eliza')!;
  await provider.provideLanguageModelChatResponse(eliza, [user('slowly chosen')], noTools, new Recorder(), token());
  await provider.provideLanguageModelChatInformation({ silent: true }, token());
  await provider.provideLanguageModelChatInformation({ silent: true }, token());
  const prepared = traced('lm/prepareSession') as Array<{ modelId: string; agent: unknown; cwd: string }>;
  assert.equal(prepared.length, 1, JSON.stringify(prepared));
  assert.equal(prepared[0].modelId, 'eliza');
  assert.deepEqual(prepared[0].agent, eliza.agent);
  assert.equal(prepared[0].cwd, os.tmpdir());
  const chat = traced('lm/provideLanguageModelChatResponse') as Array<{ cwd: string }>;
  assert.equal(chat[0].cwd, os.tmpdir(), 'the workspace folder is the agent\'s cwd');
  const listings = traced('lm/provideLanguageModelChatInformation') as Array<{ cwd: string }>;
  assert.ok(listings.length > 0 && listings.every((l) => l.cwd === os.tmpdir()), 'a listing names the workspace, where spare sessions open');
});

/** The backends' own log lines (their stderr, in the traces). */
function logLines(): string[] {
  return fs.readdirSync(traceDir).flatMap((f) => fs.readFileSync(path.join(traceDir, f), 'utf8').split('\n').filter((l) => / stderr /.test(l)));
}

/** Waits until a log line matches; the backend writes a file, so this polls. */
async function logged(re: RegExp, timeoutMs = 10000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (logLines().some((l) => re.test(l))) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

test('after a restart, the listing gets a session of the last chosen agent ready; the next new chat takes it', async () => {
  await vscode.commands.executeCommand('parley.restartBackend'); // the old backend's conversation ends with it
  const provider = vscode.mock.providers.get('parley') as ParleyChatProvider;
  const models = await provider.provideLanguageModelChatInformation({ silent: true }, token());
  assert.ok(await logged(/msg="spare session ready".*agent=eliza/), 'the spare session opened');
  const progress = new Recorder();
  await provider.provideLanguageModelChatResponse(models.find((m) => m.id === 'eliza')!, [user('slowly from the spare')], noTools, progress, token());
  assert.ok(await logged(/msg="took a spare session".*agent=eliza/), 'the new chat took it');
});

test('parley: Restart backend starts a new backend; deactivate ends it', async () => {
  const before = childBackends();
  assert.equal(before.length, 1);
  await vscode.commands.executeCommand('parley.restartBackend');
  assert.ok(await gone(before[0]), 'the old backend ended');
  const now = childBackends();
  assert.equal(now.length, 1);
  assert.notEqual(now[0], before[0]);
  await deactivate();
  assert.ok(await gone(now[0]), 'deactivate ends the backend');
});
