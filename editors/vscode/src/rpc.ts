// JSON-RPC 2.0 between parley and its TypeScript front-ends: the web page (a WebSocket's
// text frames, or the VS Code webview's message channel, one message per frame) and the
// VS Code extension (a process's stdin and stdout, one message per line: LineReader).
// This file is the one client of both: editors/vscode/src/rpc.ts is a byte-identical copy
// (internal/webui's TestExtensionRPCIsTheWebPagesCopy fails when they differ), so it uses
// nothing of the DOM nor of Node.
//
// Requests can be withdrawn with an AbortSignal: the peer is told with a notification
// ($/cancel_request, ACP's request cancellation, unless the Peer is given another) and the
// request is settled by its answer. A request cancelled is recognised by its error code
// only (isCancelled), never by the words of the message. Requests from the peer get a
// signal that its $/cancel_request aborts.

export interface Transport {
  send(text: string): void;
  onMessage(cb: (text: string) => void): void;
  onClose(cb: (why: string) => void): void;
}

/** JSON-RPC's code for a request cancelled (LSP's, which ACP uses too). */
export const REQUEST_CANCELLED = -32800;
/** The code of the requests the connection's end fails (not sent by any peer). */
export const CONNECTION_CLOSED = -32099;

export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
    this.name = "RpcError";
  }
}

/** Whether err is the answer to a request that was cancelled. */
export function isCancelled(err: unknown): boolean {
  return err instanceof RpcError && err.code === REQUEST_CANCELLED;
}

type RequestHandler = (params: any, signal: AbortSignal) => Promise<unknown>;
type NotificationHandler = (params: any) => void;

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export interface PeerOptions {
  /** The notification that withdraws a request; default $/cancel_request. */
  cancelMethod?: string;
  /** Where a handler's failure is told; default console.error. */
  report?: (what: string, err: unknown) => void;
}

export class Peer {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private incoming = new Map<string | number, AbortController>();
  private requests = new Map<string, RequestHandler>();
  private notifications = new Map<string, NotificationHandler>();
  private otherNotifications: ((method: string, params: any) => void) | null = null;
  private closedWith: string | null = null;
  private closeListeners: ((why: string) => void)[] = [];
  private cancelMethod: string;
  private report: (what: string, err: unknown) => void;

  constructor(private transport: Transport, opts: PeerOptions = {}) {
    this.cancelMethod = opts.cancelMethod ?? "$/cancel_request";
    this.report = opts.report ?? ((what, err) => console.error("parley:", what, err));
    transport.onMessage((text) => this.receive(text));
    transport.onClose((why) => this.closed(why));
  }

  onRequest(method: string, h: RequestHandler) {
    this.requests.set(method, h);
  }
  onNotification(method: string, h: NotificationHandler) {
    this.notifications.set(method, h);
  }
  /** Receives the notifications no onNotification handler takes. */
  onOtherNotification(h: (method: string, params: any) => void) {
    this.otherNotifications = h;
  }
  onClose(cb: (why: string) => void) {
    this.closeListeners.push(cb);
  }

  /** Why the connection ended, or null while it lasts. */
  get closedReason(): string | null {
    return this.closedWith;
  }

  /**
   * Sends a request; sent, if given, learns its id before it is written (a peer that
   * names the request in its notifications, as lm/* does, may answer at once).
   */
  request<T = any>(method: string, params: unknown, signal?: AbortSignal, sent?: (id: number) => void): Promise<T> {
    if (this.closedWith !== null) return Promise.reject(new RpcError(CONNECTION_CLOSED, this.closedWith));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new RpcError(REQUEST_CANCELLED, "cancelled"));
        return;
      }
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // The answer still comes (parley answers every request); it settles the promise.
      signal?.addEventListener("abort", () => this.pending.has(id) && this.notify(this.cancelMethod, { requestId: id }), { once: true });
      sent?.(id);
      this.transport.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  notify(method: string, params: unknown) {
    if (this.closedWith === null) this.transport.send(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  private receive(text: string) {
    let msg: any;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return;
    if (typeof msg.method === "string") {
      if (msg.id !== undefined && msg.id !== null) this.serve(msg.id, msg.method, msg.params);
      else this.notified(msg.method, msg.params);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.error) p.reject(new RpcError(msg.error.code ?? -32603, String(msg.error.message ?? "error"), msg.error.data));
    else p.resolve(msg.result);
  }

  private notified(method: string, params: any) {
    if (method === "$/cancel_request") {
      this.incoming.get(params?.requestId)?.abort();
      return;
    }
    const h = this.notifications.get(method);
    try {
      if (h) h(params);
      else this.otherNotifications?.(method, params);
    } catch (e) {
      this.report(`handling ${method}`, e);
    }
  }

  private async serve(id: string | number, method: string, params: any) {
    const h = this.requests.get(method);
    if (!h) {
      this.reply(id, undefined, { code: -32601, message: `method not found: ${method}` });
      return;
    }
    const ctl = new AbortController();
    this.incoming.set(id, ctl);
    try {
      const result = await h(params, ctl.signal);
      this.reply(id, result ?? {});
    } catch (e) {
      const err = e instanceof RpcError ? { code: e.code, message: e.message } : { code: ctl.signal.aborted ? REQUEST_CANCELLED : -32603, message: String((e as Error)?.message ?? e) };
      this.reply(id, undefined, err);
    } finally {
      this.incoming.delete(id);
    }
  }

  private reply(id: string | number, result: unknown, error?: { code: number; message: string }) {
    if (this.closedWith !== null) return;
    this.transport.send(JSON.stringify(error ? { jsonrpc: "2.0", id, error } : { jsonrpc: "2.0", id, result }));
  }

  private closed(why: string) {
    if (this.closedWith !== null) return;
    this.closedWith = why;
    for (const p of this.pending.values()) p.reject(new RpcError(CONNECTION_CLOSED, why));
    this.pending.clear();
    for (const c of this.incoming.values()) c.abort();
    for (const cb of this.closeListeners) cb(why);
  }
}

/**
 * Splits a stream of text into lines (newline-delimited JSON-RPC): each chunk is scanned
 * once from where the last line ended, and the piece of a line that spans chunks is kept
 * as a list joined once, when its end comes: linear in the input, whatever the chunking.
 * A carriage return before the newline is dropped; blank lines are skipped.
 */
export class LineReader {
  private partial: string[] = [];

  constructor(private onLine: (line: string) => void) {}

  push(chunk: string) {
    let start = 0;
    for (let nl = chunk.indexOf("\n"); nl >= 0; nl = chunk.indexOf("\n", start)) {
      let line = chunk.slice(start, nl);
      start = nl + 1;
      if (this.partial.length > 0) {
        this.partial.push(line);
        line = this.partial.join("");
        this.partial = [];
      }
      this.deliver(line);
    }
    if (start < chunk.length) this.partial.push(chunk.slice(start));
  }

  /** The stream ended: a last line without its newline is delivered. */
  end() {
    const line = this.partial.join("");
    this.partial = [];
    this.deliver(line);
  }

  private deliver(line: string) {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() !== "") this.onLine(line);
  }
}

/**
 * A Transport over a byte stream of newline-delimited messages (a process's stdin and
 * stdout): write takes each message with its newline; the owner feeds what it reads to
 * read and tells end when the stream is over. JSON.stringify never writes a newline
 * inside a message.
 */
export function streamTransport(write: (data: string) => void): Transport & { read(chunk: string): void; end(why: string): void } {
  const messages: ((t: string) => void)[] = [];
  const closes: ((w: string) => void)[] = [];
  const lines = new LineReader((line) => {
    for (const cb of messages) cb(line);
  });
  let ended = false;
  return {
    send: (t) => !ended && write(t + "\n"),
    onMessage: (cb) => messages.push(cb),
    onClose: (cb) => closes.push(cb),
    read: (chunk) => lines.push(chunk),
    end: (why) => {
      if (ended) return;
      lines.end();
      ended = true;
      for (const cb of closes) cb(why);
    },
  };
}
