// The backend process, `parley vscodelm`, and the JSON-RPC client that talks to it.
// It knows nothing of VS Code: the extension gives it a way to find the binary, the
// arguments, a log and cancellation tokens in the shape VS Code's have.

import { ChildProcess, spawn } from 'node:child_process';
import { ErrorCodes } from './wire';

/** Where the backend's stderr and the client's own notes go (VS Code's output channel). */
export interface LogSink {
  appendLine(line: string): void;
}

/** The shape of VS Code's CancellationToken that the client needs. */
export interface CancelToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

export interface BackendOptions {
  /** Finds the parley binary; throws an error that says how to install it. */
  locate(): Promise<string>;
  /** Global flags before the subcommand, e.g. ['--log', 'debug']. */
  globalArgs(): string[];
  log: LogSink;
  env?: NodeJS.ProcessEnv;
  /** The backend's working directory (the workspace of a request that names none); default the extension host's. */
  cwd?: string;
  /** How long to wait for an exit after closing stdin, then after SIGTERM (ms). */
  stopGraceMs?: number;
}

/** An error the backend answered a request with. */
export class BackendError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'BackendError';
  }

  /** The backend's answer to a cancelled or superseded request. */
  get cancelled(): boolean {
    return this.code === ErrorCodes.requestCancelled || /cancel/i.test(this.message);
  }
}

/** The request was cancelled through its token; the backend was told with lm/cancel. */
export class RequestCancelledError extends Error {
  constructor() {
    super('request cancelled');
    this.name = 'RequestCancelledError';
  }
}

/** The backend process ended (or could not start) while a request was open. */
export class BackendStoppedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendStoppedError';
  }
}

type Notification = { method: string; params: unknown };

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(err: Error): void;
  onNotification?: (n: Notification) => void;
}

/** One running `parley vscodelm` and the requests waiting for it. */
class Session {
  readonly pending = new Map<number, Pending>();
  readonly exited: Promise<void>;
  private buffered = '';
  private stopping?: string; // why we stop it, when we do
  private exitCode: number | null = null;
  private exitSignal: NodeJS.Signals | null = null;

  constructor(
    readonly proc: ChildProcess,
    private readonly log: LogSink,
  ) {
    this.exited = new Promise((resolve) => {
      proc.on('close', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        this.failAll(new BackendStoppedError(this.stoppedMessage()));
        resolve();
      });
    });
    proc.stdout?.setEncoding('utf8');
    proc.stdout?.on('data', (chunk: string) => this.read(chunk));
    let errBuffer = '';
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (chunk: string) => {
      errBuffer += chunk;
      let nl: number;
      while ((nl = errBuffer.indexOf('\n')) >= 0) {
        this.log.appendLine(errBuffer.slice(0, nl).replace(/\r$/, ''));
        errBuffer = errBuffer.slice(nl + 1);
      }
    });
    proc.stderr?.on('end', () => errBuffer && this.log.appendLine(errBuffer));
    // A write after the process died fails here, not as an uncaught exception; the
    // close event fails the pending requests.
    proc.stdin?.on('error', (err) => this.log.appendLine(`[client] writing to parley: ${err.message}`));
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null && !this.stopping;
  }

  private stoppedMessage(): string {
    if (this.stopping) return this.stopping;
    const how = this.exitSignal ? `was killed by ${this.exitSignal}` : `exited with code ${this.exitCode}`;
    return `The parley backend ${how} before it answered. The next request starts it again; "parley: Show log" has its output.`;
  }

  write(message: object): void {
    if (!this.proc.stdin?.writable) return;
    this.proc.stdin.write(JSON.stringify(message) + '\n');
  }

  private read(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl).trim();
      this.buffered = this.buffered.slice(nl + 1);
      if (line) this.dispatch(line);
    }
  }

  private dispatch(line: string): void {
    let msg: { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };
    try {
      msg = JSON.parse(line);
    } catch {
      this.log.appendLine(`[client] not JSON on parley's stdout: ${line.slice(0, 200)}`);
      return;
    }
    if (typeof msg.method === 'string') {
      const params = msg.params as { requestId?: unknown } | undefined;
      const p = typeof params?.requestId === 'number' ? this.pending.get(params.requestId) : undefined;
      p?.onNotification?.({ method: msg.method, params: msg.params });
      return;
    }
    if (typeof msg.id !== 'number') {
      if (msg.error) this.log.appendLine(`[client] parley: ${msg.error.message}`);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return; // cancelled here already
    this.pending.delete(msg.id);
    if (msg.error) p.reject(new BackendError(msg.error.code, msg.error.message, msg.error.data));
    else p.resolve(msg.result);
  }

  failAll(err: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(err);
  }

  /** Ends the process: stdin closed, then SIGTERM, then SIGKILL, each after a grace period. */
  async stop(why: string, graceMs: number): Promise<void> {
    this.stopping ??= why;
    this.failAll(new BackendStoppedError(why));
    this.proc.stdin?.end();
    if (await exitedWithin(this.exited, graceMs)) return this.log.appendLine(`[client] parley (pid ${this.proc.pid}) exited when its stdin was closed`);
    this.signal('SIGTERM');
    if (await exitedWithin(this.exited, graceMs)) return this.log.appendLine(`[client] parley (pid ${this.proc.pid}) exited on SIGTERM`);
    this.signal('SIGKILL');
    await this.exited;
    this.log.appendLine(`[client] parley (pid ${this.proc.pid}) was killed`);
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.proc.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, sig); // the whole process group: parley and the agents it started
    } catch {
      this.proc.kill(sig);
    }
  }
}

function exitedWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    exited.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * The backend: started on the first request, started again on the next request after it
 * died, stopped on dispose. Requests are numbered from 1.
 */
export class Backend {
  private session?: Session;
  private starting?: Promise<Session>;
  private nextId = 1;
  private disposed = false;
  private readonly startListeners: Array<() => void> = [];

  constructor(private readonly opts: BackendOptions) {}

  /** The pid of the running backend, if any (for tests and the log). */
  get pid(): number | undefined {
    return this.session?.alive ? this.session.proc.pid : undefined;
  }

  /** Calls listener after each start of the backend process. */
  onDidStart(listener: () => void): void {
    this.startListeners.push(listener);
  }

  /** Starts the backend now if it is not running. */
  async start(): Promise<void> {
    await this.ensure();
  }

  private async ensure(): Promise<Session> {
    if (this.disposed) throw new BackendStoppedError('The parley extension is shutting down.');
    if (this.session?.alive) return this.session;
    this.starting ??= this.spawn().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async spawn(): Promise<Session> {
    const bin = await this.opts.locate();
    const args = [...this.opts.globalArgs(), 'vscodelm'];
    const proc = spawn(bin, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: this.opts.env ?? process.env,
      cwd: this.opts.cwd,
      detached: true, // its own process group, so that stopping it reaches its agents too
    });
    await new Promise<void>((resolve, reject) => {
      proc.once('spawn', resolve);
      proc.once('error', (err) => reject(new BackendStoppedError(`Cannot start ${bin}: ${err.message}`)));
    });
    this.opts.log.appendLine(`[client] started ${bin} ${args.join(' ')} (pid ${proc.pid})`);
    const session = new Session(proc, this.opts.log);
    session.exited.then(() => {
      this.opts.log.appendLine(`[client] parley (pid ${proc.pid}) ended`);
      if (this.session === session) this.session = undefined;
    });
    this.session = session;
    for (const l of this.startListeners) l();
    return session;
  }

  /**
   * Sends a request and returns its result. onNotification receives the notifications
   * that name this request (lm/responsePart, lm/responseComplete). When token is
   * cancelled, lm/cancel goes to the backend and the promise rejects at once with
   * RequestCancelledError; whatever the backend still sends for the request is dropped.
   */
  async request<T>(method: string, params: unknown, opts: { token?: CancelToken; onNotification?: (n: Notification) => void } = {}): Promise<T> {
    if (opts.token?.isCancellationRequested) throw new RequestCancelledError();
    const session = await this.ensure();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      let sub: { dispose(): unknown } | undefined;
      const done = () => sub?.dispose();
      session.pending.set(id, {
        method,
        onNotification: opts.onNotification,
        resolve: (r) => {
          done();
          resolve(r as T);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      sub = opts.token?.onCancellationRequested(() => {
        if (!session.pending.delete(id)) return;
        session.write({ jsonrpc: '2.0', method: 'lm/cancel', params: { requestId: id } });
        done();
        reject(new RequestCancelledError());
      });
      session.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Sends a notification if the backend is running (it is not started for one). */
  notify(method: string, params: unknown): void {
    if (this.session?.alive) this.session.write({ jsonrpc: '2.0', method, params });
  }

  /** Stops the backend; open requests fail with a message saying so. It starts again when needed. */
  async restart(): Promise<void> {
    const s = this.session;
    this.session = undefined;
    await s?.stop('The parley backend was restarted; send the request again.', this.opts.stopGraceMs ?? 3000);
    if (!this.disposed) await this.start();
  }

  /** Ends the backend for good: stdin closed, then a signal if it does not exit. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const s = this.session;
    this.session = undefined;
    await s?.stop('The parley extension is shutting down.', this.opts.stopGraceMs ?? 3000);
  }
}
