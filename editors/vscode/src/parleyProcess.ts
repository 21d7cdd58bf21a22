// A parley process the extension runs (`parley vscodelm` for the model provider, `parley
// acp` for @parley and the chat webviews): started in its own process group, its stderr
// line by line into the log, its stdin and stdout a newline-delimited JSON-RPC Transport
// (rpc.ts, the page's client too), and stopped by closing stdin, then SIGTERM, then
// SIGKILL to the group (the agents it started go with it). It knows nothing of VS Code.

import { ChildProcess, spawn } from 'node:child_process';
import { LineReader, streamTransport, type Transport } from './rpc';

/** Where the process's stderr and the client's own notes go (VS Code's output channel). */
export interface LogSink {
  appendLine(line: string): void;
}

export interface StartOptions {
  bin: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  log: LogSink;
  /** Put before each line of its stderr in the log ('' for none). */
  stderrPrefix?: string;
  /** What the messages call it: "The parley backend", "parley acp". */
  name?: string;
  /** The tag of the log's notes about it ("[client]", "[chat]"). */
  tag?: string;
}

export class ParleyProcess {
  readonly exited: Promise<void>;
  /** Its stdin and stdout, one JSON-RPC message per line; closed when the process ends. */
  readonly transport: Transport;
  private stopping?: string; // why we stop it, when we do
  private exitCode: number | null = null;
  private exitSignal: NodeJS.Signals | null = null;
  private readonly stream: ReturnType<typeof streamTransport>;

  private constructor(
    readonly proc: ChildProcess,
    private readonly log: LogSink,
    stderrPrefix: string,
    private readonly name: string,
  ) {
    const stream = streamTransport((data) => {
      if (proc.stdin?.writable) proc.stdin.write(data);
    });
    this.stream = stream;
    this.transport = stream;
    this.exited = new Promise((resolve) => {
      proc.on('close', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        stream.end(this.endedMessage());
        resolve();
      });
    });
    proc.stdout?.setEncoding('utf8');
    proc.stdout?.on('data', (chunk: string) => stream.read(chunk));
    const errLines = new LineReader((line) => this.log.appendLine(stderrPrefix + line));
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (chunk: string) => errLines.push(chunk));
    proc.stderr?.on('end', () => errLines.end());
    // A write after the process died fails here, not as an uncaught exception; the close
    // event ends the transport.
    proc.stdin?.on('error', (err) => this.log.appendLine(`[client] writing to parley: ${err.message}`));
  }

  /** Starts the process; rejects with a message naming the binary when it cannot start. */
  static async start(opts: StartOptions): Promise<ParleyProcess> {
    const proc = spawn(opts.bin, opts.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      detached: true, // its own process group, so that stopping it reaches its agents too
    });
    await new Promise<void>((resolve, reject) => {
      proc.once('spawn', resolve);
      proc.once('error', (err) => reject(new Error(`Cannot start ${opts.bin}: ${err.message}`)));
    });
    opts.log.appendLine(`${opts.tag ?? '[client]'} started ${opts.bin} ${opts.args.join(' ')} (pid ${proc.pid})`);
    return new ParleyProcess(proc, opts.log, opts.stderrPrefix ?? '', opts.name ?? 'parley');
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null && !this.stopping;
  }

  /** Why the process ended, for the requests it did not answer. */
  endedMessage(): string {
    if (this.stopping) return this.stopping;
    const how = this.exitSignal ? `was killed by ${this.exitSignal}` : `exited with code ${this.exitCode}`;
    return `${this.name} ${how} before it answered. The next request starts it again; "parley: Show log" has its output.`;
  }

  /** Ends the process: stdin closed, then SIGTERM, then SIGKILL, each after a grace period. */
  async stop(why: string, graceMs: number): Promise<void> {
    this.stopping ??= why;
    this.stream.end(why); // the open requests fail now, with why
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return this.exited;
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
