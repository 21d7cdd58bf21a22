// JSON-RPC 2.0 over a message transport (a WebSocket's text frames, or the VS Code
// webview's message channel): one message per frame. Requests can be withdrawn with an
// AbortSignal ($/cancel_request, ACP's request cancellation); requests from parley get a
// signal that $/cancel_request aborts.

export interface Transport {
  send(text: string): void;
  onMessage(cb: (text: string) => void): void;
  onClose(cb: (why: string) => void): void;
}

export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

type RequestHandler = (params: any, signal: AbortSignal) => Promise<unknown>;
type NotificationHandler = (params: any) => void;

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export class Peer {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private incoming = new Map<string | number, AbortController>();
  private requests = new Map<string, RequestHandler>();
  private notifications = new Map<string, NotificationHandler>();
  private closedWith: string | null = null;
  private closeListeners: ((why: string) => void)[] = [];

  constructor(private transport: Transport) {
    transport.onMessage((text) => this.receive(text));
    transport.onClose((why) => this.closed(why));
  }

  onRequest(method: string, h: RequestHandler) {
    this.requests.set(method, h);
  }
  onNotification(method: string, h: NotificationHandler) {
    this.notifications.set(method, h);
  }
  onClose(cb: (why: string) => void) {
    this.closeListeners.push(cb);
  }

  request<T = any>(method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    if (this.closedWith !== null) return Promise.reject(new RpcError(-32099, this.closedWith));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (signal) {
        if (signal.aborted) {
          this.pending.delete(id);
          reject(new RpcError(-32800, "cancelled"));
          return;
        }
        // The answer still comes (parley answers every request); it settles the promise.
        signal.addEventListener("abort", () => this.notify("$/cancel_request", { requestId: id }), { once: true });
      }
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
    if (h) {
      try {
        h(params);
      } catch (e) {
        console.error("parley: handling", method, e);
      }
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
      const err = e instanceof RpcError ? { code: e.code, message: e.message } : { code: ctl.signal.aborted ? -32800 : -32603, message: String((e as Error)?.message ?? e) };
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
    for (const p of this.pending.values()) p.reject(new RpcError(-32099, why));
    this.pending.clear();
    for (const c of this.incoming.values()) c.abort();
    for (const cb of this.closeListeners) cb(why);
  }
}

// webSocketTransport connects to parley's /acp (the cookie parley set carries the token).
export function webSocketTransport(url: string): Promise<Transport> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ["acp"]);
    const messages: ((t: string) => void)[] = [];
    const closes: ((w: string) => void)[] = [];
    let open = false;
    ws.onopen = () => {
      open = true;
      resolve({
        send: (t) => ws.readyState === WebSocket.OPEN && ws.send(t),
        onMessage: (cb) => messages.push(cb),
        onClose: (cb) => closes.push(cb),
      });
    };
    ws.onmessage = (e) => {
      if (typeof e.data === "string") for (const cb of messages) cb(e.data);
    };
    ws.onclose = (e) => {
      if (!open) reject(new Error("parley refused the connection (open the address parley printed)"));
      for (const cb of closes) cb(e.reason || "parley closed the connection");
    };
  });
}

// The VS Code webview: the extension relays each message to and from the parley process
// it runs (parley acp), one JSON-RPC message per postMessage.
export function vscodeTransport(api: { postMessage(m: unknown): void }): Transport {
  const messages: ((t: string) => void)[] = [];
  const closes: ((w: string) => void)[] = [];
  window.addEventListener("message", (e: MessageEvent) => {
    const d = e.data;
    if (d && d.type === "acp" && typeof d.text === "string") for (const cb of messages) cb(d.text);
    if (d && d.type === "acp-closed") for (const cb of closes) cb(String(d.reason ?? "parley stopped"));
  });
  return {
    send: (t) => api.postMessage({ type: "acp", text: t }),
    onMessage: (cb) => messages.push(cb),
    onClose: (cb) => closes.push(cb),
  };
}
