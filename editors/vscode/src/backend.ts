// The backend process, `parley vscodelm`, and the lm/* requests the model provider sends
// it, over the extension's one JSON-RPC client (rpc.ts, on a ParleyProcess's stdio).
// It knows nothing of VS Code: the extension gives it a way to find the binary, the
// arguments, a log and cancellation tokens in the shape VS Code's have.

import { ParleyProcess, type LogSink } from './parleyProcess';
import { CONNECTION_CLOSED, Peer, RpcError } from './rpc';

export type { LogSink } from './parleyProcess';

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

/** An error the backend answered a request with (isCancelled in rpc.ts tells a cancelled one by its code). */
export { RpcError as BackendError } from './rpc';

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

/** One running `parley vscodelm`, its client, and the requests whose notifications it routes. */
class Session {
  readonly peer: Peer;
  /** Each open request's listener for the notifications that name it (params.requestId). */
  readonly listeners = new Map<number, (n: Notification) => void>();

  constructor(readonly process: ParleyProcess, log: LogSink) {
    this.peer = new Peer(process.transport, { cancelMethod: 'lm/cancel', report: (what, err) => log.appendLine(`[client] ${what}: ${err instanceof Error ? err.message : String(err)}`) });
    this.peer.onOtherNotification((method, params) => {
      const id = (params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === 'number') this.listeners.get(id)?.({ method, params });
    });
  }

  get alive(): boolean {
    return this.process.alive;
  }
}

/**
 * The backend: started on the first request, started again on the next request after it
 * died, stopped on dispose. Requests are numbered from 1.
 */
export class Backend {
  private session?: Session;
  private starting?: Promise<Session>;
  private disposed = false;
  private readonly startListeners: Array<() => void> = [];

  constructor(private readonly opts: BackendOptions) {}

  /** The pid of the running backend, if any (for tests and the log). */
  get pid(): number | undefined {
    return this.session?.alive ? this.session.process.pid : undefined;
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
    let process: ParleyProcess;
    try {
      process = await ParleyProcess.start({ bin, args: [...this.opts.globalArgs(), 'vscodelm'], env: this.opts.env, cwd: this.opts.cwd, log: this.opts.log, name: 'The parley backend' });
    } catch (err) {
      throw new BackendStoppedError(err instanceof Error ? err.message : String(err));
    }
    const session = new Session(process, this.opts.log);
    process.exited.then(() => {
      this.opts.log.appendLine(`[client] parley (pid ${process.pid}) ended`);
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
    const abort = new AbortController();
    let id: number | undefined;
    const answered = session.peer.request<T>(method, params, abort.signal, (sent) => {
      id = sent;
      if (opts.onNotification) session.listeners.set(sent, opts.onNotification);
    });
    let sub: { dispose(): unknown } | undefined;
    const cancelled = new Promise<never>((_, reject) => {
      sub = opts.token?.onCancellationRequested(() => {
        // Whatever the backend still sends for the request is dropped.
        if (id !== undefined) session.listeners.delete(id);
        abort.abort();
        reject(new RequestCancelledError());
      });
    });
    try {
      return await Promise.race([answered, cancelled]);
    } catch (err) {
      if (err instanceof RpcError && err.code === CONNECTION_CLOSED) throw new BackendStoppedError(err.message);
      throw err;
    } finally {
      sub?.dispose();
      if (id !== undefined) session.listeners.delete(id);
      answered.catch(() => undefined); // a cancelled request's late answer
    }
  }

  /** Sends a notification if the backend is running (it is not started for one). */
  notify(method: string, params: unknown): void {
    if (this.session?.alive) this.session.peer.notify(method, params);
  }

  /** Stops the backend; open requests fail with a message saying so. It starts again when needed. */
  async restart(): Promise<void> {
    const s = this.session;
    this.session = undefined;
    await s?.process.stop('The parley backend was restarted; send the request again.', this.opts.stopGraceMs ?? 3000);
    if (!this.disposed) await this.start();
  }

  /** Ends the backend for good: stdin closed, then a signal if it does not exit. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const s = this.session;
    this.session = undefined;
    await s?.process.stop('The parley extension is shutting down.', this.opts.stopGraceMs ?? 3000);
  }
}
