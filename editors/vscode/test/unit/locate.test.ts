// Where the extension finds parley, and how it reads parley's version.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { bundledPath, findParley, ParleyNotFoundError } from '../../src/locate';
import { backendVersion, compareVersions, parseVersionOutput } from '../../src/version';
import { parleyBin } from './helpers';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-vscode-locate-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function executable(file: string, mode = 0o755): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\necho "parley version v0.0.0"\n', { mode });
  fs.chmodSync(file, mode); // the umask may have taken bits away
  return file;
}

describe('finding parley', () => {
  const ext = path.join(root, 'ext');
  const carried = executable(bundledPath(ext));
  const onPath = executable(path.join(root, 'pathdir', 'parley'));
  const configured = executable(path.join(root, 'mine', 'parley'));
  const env = { PATH: path.dirname(onPath), HOME: root, GOPATH: path.join(root, 'gopath') };

  test('the parley the extension carries, when parley.path is empty', async () => {
    assert.deepEqual(await findParley('', env, ext), { path: carried, source: 'bundled' });
  });

  test('parley.path, when set, wins over the carried parley', async () => {
    assert.deepEqual(await findParley(configured, env, ext), { path: configured, source: 'setting' });
  });

  test('PATH, when the extension carries none', async () => {
    assert.deepEqual(await findParley('', env, path.join(root, 'universal')), { path: onPath, source: 'path' });
    assert.deepEqual(await findParley('', env), { path: onPath, source: 'path' });
  });

  test('a carried parley that lost its executable bit is made executable', async () => {
    const ext2 = path.join(root, 'ext2');
    const file = executable(bundledPath(ext2), 0o644);
    assert.deepEqual(await findParley('', env, ext2), { path: file, source: 'bundled' });
    assert.equal(fs.statSync(file).mode & 0o111, 0o111);
  });

  test('a parley.path that points nowhere is an error, never replaced by the carried parley', async () => {
    await assert.rejects(findParley('/nonexistent/parley', env, ext), (err: Error) => err instanceof ParleyNotFoundError && /parley\.path is "\/nonexistent\/parley".*clear it to use the parley this extension carries/.test(err.message));
  });

  test('nowhere: the error says how to get parley, the platform .vsix first', async () => {
    await assert.rejects(findParley('', { PATH: '/nonexistent', GOPATH: '/nonexistent/go' }, path.join(root, 'universal')), (err: Error) =>
      err instanceof ParleyNotFoundError && /extension for your platform \(its \.vsix carries parley\).*go install github\.com\/parley-acp\/parley\/cmd\/parley@latest/.test(err.message));
  });
});

describe("parley's version", () => {
  test('parses what parley --version prints', () => {
    assert.deepEqual(parseVersionOutput('parley version v0.2.0\n'), { kind: 'release', version: '0.2.0' });
    assert.deepEqual(parseVersionOutput('parley version v0.2.1-rc.1\n'), { kind: 'release', version: '0.2.1-rc.1' });
    assert.deepEqual(parseVersionOutput('parley version devel\n'), { kind: 'development', text: 'devel' });
    assert.deepEqual(parseVersionOutput('parley version devel 1a2b3c4d5e6f-dirty\n'), { kind: 'development', text: 'devel 1a2b3c4d5e6f-dirty' });
    assert.deepEqual(parseVersionOutput('parley version v0.0.0-20260101120000-1a2b3c4d5e6f\n'), { kind: 'development', text: 'v0.0.0-20260101120000-1a2b3c4d5e6f' });
    assert.deepEqual(parseVersionOutput('parley version v0.2.1-0.20260101120000-1a2b3c4d5e6f+dirty\n'), { kind: 'development', text: 'v0.2.1-0.20260101120000-1a2b3c4d5e6f+dirty' });
    assert.deepEqual(parseVersionOutput('parley version v0.2.1-snapshot.1a2b3c4\n'), { kind: 'development', text: 'v0.2.1-snapshot.1a2b3c4' });
    assert.equal(parseVersionOutput('Usage: something else').kind, 'unknown');
  });

  test('compares with the extension version', () => {
    assert.deepEqual(compareVersions('0.2.0', { kind: 'release', version: '0.2.0' }), { result: 'match', version: '0.2.0' });
    assert.deepEqual(compareVersions('0.2.0', { kind: 'release', version: '0.1.9' }), { result: 'mismatch', backend: 'v0.1.9', extension: '0.2.0' });
    assert.deepEqual(compareVersions('0.2.0', { kind: 'development', text: 'devel' }), { result: 'unknown', backend: 'devel', extension: '0.2.0' });
  });

  test('asks the real binary', async () => {
    const v = await backendVersion(parleyBin());
    assert.notEqual(v.kind, 'unknown', JSON.stringify(v));
  });

  test('a binary that is not parley is "unknown", with the reason', async () => {
    const v = await backendVersion('/nonexistent/parley');
    assert.equal(v.kind, 'unknown');
    assert.match((v as { text: string }).text, /--version failed/);
  });
});
