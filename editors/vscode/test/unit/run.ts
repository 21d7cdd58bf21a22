// `npm test`: builds the real parley binary once (unless PARLEY_BIN names one), then runs
// the unit tests with Node's test runner, require('vscode') answered by the mock.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repo = path.resolve(__dirname, '../../../../..');
let bin = process.env.PARLEY_BIN;
let built: string | undefined;
if (!bin) {
  const dir = (built = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-vscode-unit-')));
  bin = path.join(dir, 'parley');
  process.stderr.write(`building ${bin}\n`);
  execFileSync('go', ['build', '-o', bin, './cmd/parley'], { cwd: repo, stdio: 'inherit' });
}
const dir = __dirname;
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.test.js')).map((f) => path.join(dir, f));
const only = process.argv.slice(2);
const res = spawnSync(process.execPath, ['--require', path.join(dir, 'setup.js'), '--test', ...(only.length ? only : files)], {
  stdio: 'inherit',
  env: { ...process.env, PARLEY_BIN: bin },
});
if (built) fs.rmSync(built, { recursive: true, force: true });
process.exit(res.status ?? 1);
