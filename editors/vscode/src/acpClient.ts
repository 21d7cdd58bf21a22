// The extension's `parley acp`: one process per window, in the first workspace folder,
// that @parley, the review of a turn's changes, the agent's settings, sign-in and
// questions speak ACP and parley's _parley/* to (the same protocol as the web page and
// the chat webview, over the same client, rpc.ts). Started on first use and again after
// it died; the process management is ParleyProcess's. What parley sends about a session
// (session/update, session/request_permission, elicitation/create, _parley/* naming a
// sessionId) goes to the listener of that session: the @parley turn running in it.

import { ParleyProcess, type LogSink } from './parleyProcess';
import { Peer } from './rpc';
import type { ConfigOption, ElicitationAnswer, ElicitationParams, NewSessionResult, PermissionOutcome, RequestPermissionParams, SessionId, SessionUpdate } from './acpTypes';
import type { AgentServers } from './models';

/** parley acp's command line (the chat webview runs it the same way). */
export function acpArgs(globalArgs: string[], folder: string, agent: string): string[] {
  return [...globalArgs, 'acp', '--cwd', folder, '--agent', agent];
}

/**
 * parley acp's environment: base, with the agents of the parley.agentServers setting in
 * PARLEY_AGENT_SERVERS (not on the command line, where ps would show an agent's env, which
 * may hold an API key, to every user of the machine).
 */
export function acpEnv(base: NodeJS.ProcessEnv, servers: AgentServers = {}): NodeJS.ProcessEnv {
  const env = { ...base };
  delete env.PARLEY_AGENT_SERVERS;
  if (Object.keys(servers).length > 0) env.PARLEY_AGENT_SERVERS = JSON.stringify(servers);
  return env;
}

/** What one session's owner hears of it. */
export interface SessionListener {
  update?(u: SessionUpdate): void;
  permission?(req: RequestPermissionParams, signal: AbortSignal): Promise<PermissionOutcome>;
  elicitation?(req: ElicitationParams, signal: AbortSignal): Promise<ElicitationAnswer>;
  /** A _parley/* notification about the session. */
  notification?(method: string, params: any): void;
}

export interface AcpClientOptions {
  locate(): Promise<string>;
  globalArgs(): string[];
  /** The folder parley acp works in (the first workspace folder). */
  folder(): string | undefined;
  /** The agent parley acp starts when a session names none. */
  defaultAgent(): string;
  /** The agents of the parley.agentServers setting (read at each start). */
  agentServers?(): AgentServers;
  log: LogSink;
  env?: NodeJS.ProcessEnv;
  stopGraceMs?: number;
}

/** The process and its initialized client. */
interface Connection {
  process: ParleyProcess;
  peer: Peer;
  folder: string;
  /** The sessions this process holds (made or loaded through it). */
  sessions: Set<SessionId>;
}

export class AcpClient {
  private conn?: Connection;
  private starting?: Promise<Connection>;
  private disposed = false;
  private readonly listeners = new Map<SessionId, SessionListener>();
  private readonly config = new Map<SessionId, ConfigOption[]>();

  constructor(private readonly opts: AcpClientOptions) {}

  /** The pid of the running process, if any (for tests and the log). */
  get pid(): number | undefined {
    return this.conn?.process.alive ? this.conn.process.pid : undefined;
  }

  /** The folder sessions work in (the process's). */
  async folder(): Promise<string> {
    return (await this.connection()).folder;
  }

  /** Whether the running process holds the session (it is gone with a process that ended). */
  holds(id: SessionId): boolean {
    return !!this.conn?.process.alive && this.conn.sessions.has(id);
  }

  /** Sends a request, starting parley acp first if needed. */
  async request<T = any>(method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    const c = await this.connection();
    const result = await c.peer.request<T>(method, params, signal);
    const id = method === 'session/new' ? (result as unknown as NewSessionResult).sessionId : (params as { sessionId?: SessionId })?.sessionId;
    if (method === 'session/new' || method === 'session/load') c.sessions.add(id!);
    if (method === 'session/close') c.sessions.delete(id!);
    const options = (result as { configOptions?: ConfigOption[] } | undefined)?.configOptions;
    if (id && Array.isArray(options)) this.config.set(id, options);
    return result;
  }

  /** The agent's settings in a session, as parley last told them (session/new, config_option_update…). */
  configOptions(id: SessionId): ConfigOption[] | undefined {
    return this.holds(id) ? this.config.get(id) : undefined;
  }

  /** Sends a notification if parley acp is running. */
  notify(method: string, params: unknown): void {
    if (this.conn?.process.alive) this.conn.peer.notify(method, params);
  }

  /** Routes what parley says about a session to l, until the returned function is called. */
  listen(id: SessionId, l: SessionListener): () => void {
    this.listeners.set(id, l);
    return () => {
      if (this.listeners.get(id) === l) this.listeners.delete(id);
    };
  }

  private async connection(): Promise<Connection> {
    if (this.disposed) throw new Error('The parley extension is shutting down.');
    if (this.conn?.process.alive) return this.conn;
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(): Promise<Connection> {
    const folder = this.opts.folder();
    if (!folder) throw new Error('Open a folder first: parley works in a workspace folder.');
    const bin = await this.opts.locate();
    const process = await ParleyProcess.start({ bin, args: acpArgs(this.opts.globalArgs(), folder, this.opts.defaultAgent()), env: acpEnv(this.opts.env ?? globalThis.process.env, this.opts.agentServers?.()), cwd: folder, log: this.opts.log, stderrPrefix: '[acp] ', name: 'parley acp' });
    const peer = new Peer(process.transport, { report: (what, err) => this.opts.log.appendLine(`[client] ${what}: ${err instanceof Error ? err.message : String(err)}`) });
    const conn: Connection = { process, peer, folder, sessions: new Set() };
    this.serve(peer);
    process.exited.then(() => {
      this.opts.log.appendLine(`[client] parley acp (pid ${process.pid}) ended`);
      if (this.conn === conn) this.conn = undefined;
    });
    try {
      await peer.request('initialize', {
        protocolVersion: 1,
        // _meta.parley asks for parley's _parley/* notifications (changes, sign-in, status…).
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, elicitation: { form: {}, url: {} }, session: { configOptions: { boolean: {} } }, _meta: { parley: {} } },
        clientInfo: { name: 'parley-vscode', version: '1' },
      });
    } catch (err) {
      void process.stop('parley acp did not initialize', this.opts.stopGraceMs ?? 2000);
      throw err;
    }
    this.conn = conn;
    return conn;
  }

  private serve(peer: Peer): void {
    const of = (params: any) => (typeof params?.sessionId === 'string' ? this.listeners.get(params.sessionId) : undefined);
    peer.onNotification('session/update', (p) => {
      if (p?.update?.sessionUpdate === 'config_option_update' && Array.isArray(p.update.configOptions)) this.config.set(p.sessionId, p.update.configOptions);
      of(p)?.update?.(p.update);
    });
    peer.onRequest('session/request_permission', async (p, signal) => {
      const l = of(p)?.permission;
      return l ? l(p, signal) : { outcome: { outcome: 'cancelled' } };
    });
    peer.onRequest('elicitation/create', async (p, signal) => {
      const l = of(p)?.elicitation;
      return l ? l(p, signal) : { action: 'cancel' };
    });
    peer.onOtherNotification((method, p) => {
      if (method.startsWith('_parley/')) of(p)?.notification?.(method, p);
    });
  }

  /** Stops the process; its sessions are gone (a chat that had one starts another). */
  async restart(): Promise<void> {
    const c = this.conn;
    this.conn = undefined;
    await c?.process.stop('parley acp was restarted; send the message again.', this.opts.stopGraceMs ?? 2000);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const c = this.conn;
    this.conn = undefined;
    await c?.process.stop('The parley extension is shutting down.', this.opts.stopGraceMs ?? 2000);
  }
}
