// Shared pieces of the unit tests: the real parley binary in an isolated home, a backend
// on it, and recorders standing in for VS Code's progress and chat response stream.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AcpClient } from '../../src/acpClient';
import { Backend, type LogSink } from '../../src/backend';
import { workspaceRoots } from '../../src/convert';
import { listModels, type AgentServers, type ParleyModel } from '../../src/models';
import { ParleyChatProvider } from '../../src/provider';
import * as vscode from './vscode-mock';

export const parleyBin = (): string => {
  const bin = process.env.PARLEY_BIN;
  if (!bin) throw new Error('PARLEY_BIN is not set: run the tests with `npm test`');
  return bin;
};

/** A log that keeps its lines, and prints them when PARLEY_TEST_LOG is set. */
export class MemoryLog implements LogSink {
  lines: string[] = [];
  appendLine(line: string): void {
    this.lines.push(line);
    if (process.env.PARLEY_TEST_LOG) process.stderr.write(`  log: ${line}\n`);
  }
}

/** HOME and the XDG folders in a fresh temporary folder, so no user configuration is read. */
export function isolatedEnv(): NodeJS.ProcessEnv {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-vscode-home-'));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('XDG_') && k !== 'HOME') env[k] = v;
  env.HOME = home;
  for (const [name, dir] of [['XDG_CONFIG_HOME', 'config'], ['XDG_DATA_HOME', 'data'], ['XDG_STATE_HOME', 'state'], ['XDG_CACHE_HOME', 'cache']]) {
    env[name] = path.join(home, dir);
    fs.mkdirSync(env[name]!, { recursive: true });
  }
  return env;
}

export interface Harness {
  backend: Backend;
  provider: ParleyChatProvider;
  log: MemoryLog;
  failures: unknown[];
  chosen: string[];
  agentServers: AgentServers;
  model(id: string): Promise<ParleyModel>;
  dispose(): Promise<void>;
}

/** A backend on the real binary and a provider on it, as the extension wires them. */
export function harness(
  opts: { bin?: string; locate?: () => Promise<string>; agentServers?: AgentServers; stopGraceMs?: number; listingRetryDelaysMs?: number[] } = {},
): Harness {
  const log = new MemoryLog();
  const failures: unknown[] = [];
  const chosen: string[] = [];
  const bin = opts.bin ?? parleyBin();
  const env = isolatedEnv();
  // The backend works in a folder of its own: a request that names no workspace works
  // there, never in this checkout.
  const cwd = path.join(env.HOME!, 'workspace');
  fs.mkdirSync(cwd);
  const backend = new Backend({
    locate: opts.locate ?? (async () => bin),
    globalArgs: () => ['--log', 'info'],
    log,
    env,
    cwd,
    stopGraceMs: opts.stopGraceMs ?? 3000,
  });
  const agentServers = opts.agentServers ?? {};
  const ctx = () => ({ backend, agentServers, workspace: workspaceRoots });
  const provider = new ParleyChatProvider({
    models: ctx,
    log,
    reportStartFailure: (err) => failures.push(err),
    onChosen: (m) => chosen.push(m.id),
    onListed: () => undefined,
    listingRetryDelaysMs: opts.listingRetryDelaysMs,
  });
  return {
    backend, provider, log, failures, chosen, agentServers,
    async model(id: string) {
      const { models } = await listModels(ctx(), true);
      const m = models.find((x) => x.id === id);
      if (!m) throw new Error(`no model ${id} in ${models.map((x) => x.id).join(', ')}`);
      return m;
    },
    async dispose() {
      provider.dispose();
      await backend.dispose();
      fs.rmSync(env.HOME!, { recursive: true, force: true });
    },
  };
}

/** A Progress that records the parts, and resolves waiters once n have come. */
export class Recorder<T> {
  parts: T[] = [];
  private waiters: Array<{ n: number; resolve(): void }> = [];
  report = (part: T) => {
    this.parts.push(part);
    this.waiters = this.waiters.filter((w) => (this.parts.length >= w.n ? (w.resolve(), false) : true));
  };
  /** Resolves when at least n parts have been reported. */
  atLeast(n: number): Promise<void> {
    if (this.parts.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }
}

export function textOf(parts: unknown[]): string {
  return parts.filter((p): p is vscode.LanguageModelTextPart => p instanceof vscode.LanguageModelTextPart).map((p) => p.value).join('');
}

export function toolCallsOf(parts: unknown[]): vscode.LanguageModelToolCallPart[] {
  return parts.filter((p): p is vscode.LanguageModelToolCallPart => p instanceof vscode.LanguageModelToolCallPart);
}

export const user = (text: string) => vscode.LanguageModelChatMessage.User(text);
export const assistant = (parts: unknown[]) => vscode.LanguageModelChatMessage.Assistant(parts);
export const toolResults = (...results: Array<[string, string]>) =>
  vscode.LanguageModelChatMessage.User(results.map(([id, v]) => new vscode.LanguageModelToolResultPart(id, [new vscode.LanguageModelTextPart(v)])));

export const noTools = { tools: [], toolMode: vscode.LanguageModelChatToolMode.Auto };

export function tools(...names: string[]) {
  return {
    toolMode: vscode.LanguageModelChatToolMode.Auto,
    tools: names.map((name) => ({ name, description: `Tool ${name}`, inputSchema: name === 'c' ? undefined : { type: 'object', properties: {} } })),
  };
}

/** Whether a process is alive (signal 0 probes without sending anything). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves when the process is gone. Process exit has no event for a non-child, so this polls. */
export async function gone(pid: number, timeoutMs = 10000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !alive(pid);
}

/** The `parley vscodelm` processes this test process started and that still run. */
export function childBackends(): number[] {
  return children(process.pid, 'vscodelm');
}

/** The Eliza processes parley (pid) started and that still run. */
export function agentPids(pid: number): number[] {
  return children(pid, 'eliza');
}

/** The running children of parent whose command line has word. */
function children(parent: number, word: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && Number(fields[1]) === parent && argv.includes(word)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export interface AcpHarness {
  acp: AcpClient;
  log: MemoryLog;
  /** The workspace folder parley acp works in. */
  workspace: string;
  dispose(): Promise<void>;
}

/**
 * The window's parley acp on the real binary, in an isolated home and a workspace of its
 * own, with the agents of a parley.agentServers setting if given.
 */
export function acpHarness(opts: { agentServers?: AgentServers } = {}): AcpHarness {
  const log = new MemoryLog();
  const env = isolatedEnv();
  const workspace = path.join(env.HOME!, 'workspace');
  fs.mkdirSync(workspace);
  const acp = new AcpClient({ locate: async () => parleyBin(), globalArgs: () => ['--log', 'info'], folder: () => workspace, defaultAgent: () => 'eliza', agentServers: () => opts.agentServers ?? {}, log, env, stopGraceMs: 3000 });
  return {
    acp, log, workspace,
    async dispose() {
      await acp.dispose();
      fs.rmSync(env.HOME!, { recursive: true, force: true });
    },
  };
}
