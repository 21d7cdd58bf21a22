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
  /** The packaged extension; when absent, the extension folder is copied in. */
  vsix?: string;
}

export function installsFromEnv(): Installs {
  const need = (name: string) => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set: run the end-to-end tests through scripts/ci.sh (or set NODE24, CODE_SERVER, CHROMIUM and PARLEY_BIN)`);
    return v;
  };
  return { node24: need('NODE24'), codeServer: need('CODE_SERVER'), chromium: need('CHROMIUM'), parley: need('PARLEY_BIN'), vsix: process.env.PARLEY_VSIX || undefined };
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
  /** The workbench's console errors and warnings, for failures. */
  console: string[];
  stop(): Promise<void>;
}

/** Starts code-server and opens its workbench in Chromium; resolves once the workbench shows. */
export async function startVSCode(inst: Installs, opts: { settings?: Record<string, unknown>; proposedApi?: boolean } = {}): Promise<VSCode> {
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
  fs.writeFileSync(path.join(machineDir, 'settings.json'), JSON.stringify({ 'parley.path': inst.parley, 'parley.traceDir': dirs.trace, ...machine }, null, 2));
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
  };
  const codeServerArgs = [inst.codeServer, '--user-data-dir', dirs.userdata, '--extensions-dir', dirs.extensions];
  if (inst.vsix) {
    const res = await run(inst.node24, [...codeServerArgs, '--install-extension', inst.vsix], env);
    if (res.code !== 0) throw new Error(`installing ${inst.vsix} failed:\n${res.output}`);
  } else {
    const dest = path.join(dirs.extensions, 'parley-acp.parley-0.1.0');
    copyDir(extensionRoot, dest, (rel) => ['package.json', 'README.md', 'out', path.join('out', 'src')].includes(rel) || rel.startsWith(path.join('out', 'src') + path.sep));
  }

  const config = path.join(root, 'code-server.yaml');
  fs.writeFileSync(config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  const logLines: string[] = [];
  const proc = spawn(inst.node24, [
    ...codeServerArgs, '--config', config,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--ignore-last-opened',
    '--disable-getting-started-override', ...(opts.proposedApi === false ? [] : ['--enable-proposed-api', 'parley-acp.parley']),
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
    async stop() {
      await browser.close().catch(() => undefined);
      await stopGroup(proc);
      if (!process.env.PARLEY_E2E_KEEP) fs.rmSync(root, { recursive: true, force: true });
    },
  };
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
