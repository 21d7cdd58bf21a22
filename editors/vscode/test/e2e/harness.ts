// A real VS Code, headless: code-server (run by Node 24) in an isolated home with the
// parley extension and the e2e test extension installed, opened in Debian's Chromium
// through playwright-core. Everything binds 127.0.0.1 and lives in one temporary folder.

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export interface Installs {
  node24: string;
  codeServer: string;
  chromium: string;
  parley: string;
  /** The .vsix for this platform, as published: it carries parley, declares no proposed API. */
  vsix?: string;
  /** The universal .vsix of the proposed flavour (it declares the proposed chat API). */
  vsixProposed?: string;
}

export function installsFromEnv(): Installs {
  const need = (name: string) => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set: run the end-to-end tests through scripts/ci.sh (or set NODE24, CODE_SERVER, CHROMIUM and PARLEY_BIN)`);
    return v;
  };
  return {
    node24: need('NODE24'), codeServer: need('CODE_SERVER'), chromium: need('CHROMIUM'), parley: need('PARLEY_BIN'),
    vsix: process.env.PARLEY_VSIX || undefined, vsixProposed: process.env.PARLEY_VSIX_PROPOSED || undefined,
  };
}

const extensionRoot = path.resolve(__dirname, '../../..'); // editors/vscode (from out/test/e2e)

function copyDir(from: string, to: string, filter: (rel: string) => boolean = () => true, rel = ''): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (!filter(r)) continue;
    if (e.isDirectory()) copyDir(path.join(from, e.name), path.join(to, e.name), filter, r);
    else fs.copyFileSync(path.join(from, e.name), path.join(to, e.name));
  }
}

export interface VSCode {
  root: string;
  workspace: string;
  resultsFile: string;
  page: Page;
  browser: Browser;
  log(): string;
  /** What the parley extension wrote to its output channel ("parley: Show log"). */
  parleyOutput(): string;
  /** The workbench's console errors and warnings, for failures. */
  console: string[];
  stop(): Promise<void>;
}

export interface StartOptions {
  settings?: Record<string, unknown>;
  /** Start code-server with --enable-proposed-api parley-acp.parley. */
  proposedApi?: boolean;
  /**
   * How the parley extension gets in: a .vsix installed as a user would, or the compiled
   * folder copied in (default), optionally without VS Code's language model provider API.
   */
  extension?: { vsix: string } | { folder: true; withoutLanguageModelProvider?: boolean };
  /** Set parley.path to the test's parley (default); false: the extension finds its own. */
  parleyPath?: boolean;
  /** What the test extension checks: everything through vscode.lm (default), or only activation. */
  selfTest?: 'full' | 'activation' | 'chat';
  /** The test extension offers a model of its own, as the editor's own models would be. */
  standInModel?: boolean;
}

/**
 * The main module of an extension folder whose editor lacks the language model provider
 * API, as some editors built on VS Code do: it removes the function from the vscode API
 * object the extension gets (one per extension), then loads the real entry point.
 */
const WITHOUT_LM_PROVIDER = `const vscode = require('vscode');
delete vscode.lm.registerLanguageModelChatProvider;
if (vscode.lm.registerLanguageModelChatProvider !== undefined) throw new Error('cannot remove vscode.lm.registerLanguageModelChatProvider');
module.exports = require('./out/src/extension.js');
`;

/** Starts code-server and opens its workbench in Chromium; resolves once the workbench shows. */
export async function startVSCode(inst: Installs, opts: StartOptions = {}): Promise<VSCode> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-vscode-e2e-'));
  const dirs = Object.fromEntries(['home', 'config', 'data', 'state', 'cache', 'run', 'tmp', 'userdata', 'extensions', 'workspace', 'trace'].map((d) => [d, path.join(root, d)]));
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dirs.workspace, 'README.md'), '# e2e workspace\n');
  const resultsFile = path.join(root, 'testext-results.json');

  // parley.path is a machine setting: code-server, a remote of sorts, reads those from Machine/.
  const machineDir = path.join(dirs.userdata, 'Machine');
  fs.mkdirSync(machineDir, { recursive: true });
  const machine = Object.fromEntries(Object.entries(opts.settings ?? {}).filter(([k]) => k.startsWith('parley.')));
  // The backend's trace (its log included) lets the test extension see what parley did.
  const parleyPath = opts.parleyPath === false ? {} : { 'parley.path': inst.parley };
  fs.writeFileSync(path.join(machineDir, 'settings.json'), JSON.stringify({ ...parleyPath, 'parley.traceDir': dirs.trace, ...machine }, null, 2));
  const userDir = path.join(dirs.userdata, 'User');
  fs.mkdirSync(userDir, { recursive: true });
  fs.writeFileSync(path.join(userDir, 'settings.json'), JSON.stringify({
    'parley.logLevel': 'debug',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    ...opts.settings,
  }, null, 2));

  // The test extension: its package.json beside its compiled code.
  const testExt = path.join(dirs.extensions, 'parley-e2e.parley-e2e-0.0.1');
  fs.mkdirSync(testExt, { recursive: true });
  fs.copyFileSync(path.join(extensionRoot, 'test/e2e/testext/package.json'), path.join(testExt, 'package.json'));
  fs.copyFileSync(path.join(extensionRoot, 'out/test/e2e/testext/extension.js'), path.join(testExt, 'extension.js'));

  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_STATE_HOME: dirs.state,
    XDG_CACHE_HOME: dirs.cache,
    XDG_RUNTIME_DIR: dirs.run,
    TMPDIR: dirs.tmp,
    PARLEY_E2E_OUT: resultsFile,
    PARLEY_E2E_TRACE: dirs.trace,
    PARLEY_E2E_SELFTEST: opts.selfTest ?? 'full',
    ...(opts.standInModel ? { PARLEY_E2E_STANDIN_MODEL: '1' } : {}),
  };
  const codeServerArgs = [inst.codeServer, '--user-data-dir', dirs.userdata, '--extensions-dir', dirs.extensions];
  const how = opts.extension ?? { folder: true };
  if ('vsix' in how) {
    const res = await run(inst.node24, [...codeServerArgs, '--install-extension', how.vsix], env);
    if (res.code !== 0) throw new Error(`installing ${how.vsix} failed:\n${res.output}`);
  } else {
    const manifest = JSON.parse(fs.readFileSync(path.join(extensionRoot, 'package.json'), 'utf8'));
    const dest = path.join(dirs.extensions, `parley-acp.parley-${manifest.version}`);
    copyDir(extensionRoot, dest, (rel) => ['package.json', 'README.md', 'out', path.join('out', 'src'), 'media'].includes(rel) || rel.startsWith(path.join('out', 'src') + path.sep) || rel.startsWith('media' + path.sep));
    if (how.withoutLanguageModelProvider) {
      fs.writeFileSync(path.join(dest, 'without-lm-provider.js'), WITHOUT_LM_PROVIDER);
      fs.writeFileSync(path.join(dest, 'package.json'), JSON.stringify({ ...manifest, main: './without-lm-provider.js' }, null, 2));
    }
  }

  const config = path.join(root, 'code-server.yaml');
  fs.writeFileSync(config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  const logLines: string[] = [];
  const proc = spawn(inst.node24, [
    ...codeServerArgs, '--config', config,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--ignore-last-opened',
    '--disable-getting-started-override', ...(opts.proposedApi ? ['--enable-proposed-api', 'parley-acp.parley'] : []),
  ], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`code-server did not start within 60 s:\n${logLines.join('')}`)), 60_000);
    const onData = (chunk: Buffer) => {
      const s = chunk.toString();
      logLines.push(s);
      const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(logLines.join(''));
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`code-server exited with ${code}:\n${logLines.join('')}`)));
  });

  const browser = await chromium.launch({ executablePath: inst.chromium, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const consoleLines: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') consoleLines.push(`${m.type()}: ${m.text()}`);
  });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });

  return {
    root, workspace: dirs.workspace, resultsFile, page, browser, console: consoleLines,
    log: () => logLines.join(''),
    parleyOutput: () => outputChannel(path.join(dirs.userdata, 'logs'), 'parley'),
    async stop() {
      await browser.close().catch(() => undefined);
      await stopGroup(proc);
      if (!process.env.PARLEY_E2E_KEEP) fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The contents of the output channel name, from the files VS Code keeps under logs (N-name.log). */
function outputChannel(logs: string, name: string): string {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (new RegExp(`^\\d+-${name}\\.log$`).test(e.name)) found.push(fs.readFileSync(p, 'utf8'));
    }
  };
  if (fs.existsSync(logs)) walk(logs);
  return found.join('');
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    p.stdout.on('data', (c) => (output += c));
    p.stderr.on('data', (c) => (output += c));
    p.on('close', (code) => resolve({ code, output }));
  });
}

/** Ends code-server's process group (its extension host and everything it started): TERM, then KILL. */
async function stopGroup(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.pid === undefined) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const kill = (sig: NodeJS.Signals) => {
    try {
      process.kill(-proc.pid!, sig);
    } catch {
      // already gone
    }
  };
  kill('SIGTERM');
  const timer = setTimeout(() => kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
  kill('SIGKILL'); // anything of the group still left
}
