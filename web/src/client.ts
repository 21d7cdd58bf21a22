// Parley is the page's ACP client of parley: it opens sessions, sends prompts and
// settings, and folds what parley sends into each Session. Questions from parley
// (permission, elicitation) become entries the user answers on the page.
import type { ContentBlock, InitializeResponse, SessionInfo } from "@agentclientprotocol/sdk";
import { parleyMeta } from "./meta";
import type * as api from "./parleyapi";
import { Peer } from "./rpc";
import { Session } from "./session";

export class Parley {
  sessions = new Map<string, Session>();
  info!: InitializeResponse;
  onSessions: (() => void)[] = [];

  constructor(readonly peer: Peer) {
    peer.onNotification("session/update", (p) => this.sessions.get(p.sessionId)?.apply(p.update));
    this.on("_parley/queue", (p) => {
      const s = this.sessions.get(p.sessionId);
      if (!s) return;
      s.running = p.running ?? null;
      s.queued = p.queued;
      s.changed();
    });
    this.on("_parley/terminal_output", (p) => this.sessions.get(p.sessionId)?.setTerminal(p.terminalId, p));
    this.on("_parley/notice", (p) => this.sessions.get(p.sessionId)?.add({ kind: "notice", text: p.text }));
    this.on("_parley/status", (p) => {
      const s = this.sessions.get(p.sessionId);
      if (!s) return;
      s.status = { state: p.state, text: p.text };
      if (p.state === "failed") s.add({ kind: "notice", text: p.text ?? "the agent failed to start", error: true });
      if (p.state === "closed") s.closed = true;
      s.changed();
    });
    this.on("_parley/sign_in_required", (p) => {
      const s = this.sessions.get(p.sessionId);
      if (s) s.add({ kind: "signin", signIn: { agent: p.agent, methods: p.methods } });
    });
    this.on("_parley/sign_in_ended", (p) => {
      const s = this.sessions.get(p.sessionId);
      if (!s) return;
      for (const e of s.entries) if (e.kind === "signin" && !e.signIn.done && !p.error) (e.signIn.done = `Signed in (${p.method})`), s.touch(e);
      s.add({ kind: "notice", text: p.error ? `Sign-in with ${p.method} failed: ${p.error}` : `Signed in with ${p.method}.`, error: !!p.error });
    });
    this.on("_parley/changes", (p) => {
      const s = this.sessions.get(p.sessionId);
      if (!s || !p.files.length) return;
      const had = s.entries.find((e) => e.kind === "changes" && e.turn.number === p.number);
      if (had && had.kind === "changes") (had.turn = p), s.touch(had);
      else s.add({ kind: "changes", turn: p });
    });
    this.on("_parley/changes_changed", (p) => {
      const s = this.sessions.get(p.sessionId);
      if (s) this.refreshChanges(s);
    });
    peer.onRequest("session/request_permission", (p, signal) => this.askPermission(p, signal));
    peer.onRequest("elicitation/create", (p, signal) => this.elicit(p, signal));
  }

  // call sends a _parley/* request, on takes a _parley/* notification: both typed by the
  // protocol's declarations (parleyapi.ts, generated from parley's Go types).
  private call<M extends keyof api.ParleyRequests>(method: M, params: api.ParleyRequests[M]["params"]): Promise<api.ParleyRequests[M]["result"]> {
    return this.peer.request(method, params);
  }
  private on<M extends keyof api.ParleyNotifications>(method: M, h: (p: api.ParleyNotifications[M]) => void) {
    this.peer.onNotification(method, h);
  }

  async start() {
    this.info = await this.peer.request("initialize", {
      protocolVersion: 1,
      // _meta.parley asks for parley's _parley/* notifications (queue, status, changes…).
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, elicitation: { form: {}, url: {} }, _meta: { parley: {} } },
      clientInfo: { name: "parley-web", version: "1" },
    });
  }

  get defaultAgent(): string {
    return parleyMeta<api.InitializeMeta>(this.info)?.defaultAgent ?? "eliza";
  }
  get workspace(): string {
    return parleyMeta<api.InitializeMeta>(this.info)?.workspace ?? "";
  }

  private adopt(id: string, resp: any): Session {
    const meta = parleyMeta<api.SessionMeta>(resp) ?? { agent: "?", promptCapabilities: {}, cwd: this.workspace };
    let s = this.sessions.get(id);
    if (s) s.meta = meta;
    else {
      s = new Session(id, meta);
      this.sessions.set(id, s);
    }
    s.modes = resp.modes ?? null;
    s.models = resp.models ?? null;
    s.config = resp.configOptions ?? s.config;
    s.running = meta.running ?? null;
    s.changed();
    for (const cb of this.onSessions) cb();
    return s;
  }

  async newSession(agent?: string): Promise<Session> {
    const resp = await this.peer.request("session/new", { cwd: this.workspace, mcpServers: [], _meta: agent ? { parley: { agent } satisfies api.RequestMeta } : undefined });
    // Updates that follow the response are for this id: adopt it before they come.
    return this.adopt(resp.sessionId, resp);
  }

  async load(id: string, agent?: string, title?: string): Promise<Session> {
    // The replay arrives before the answer: the session must exist to take it.
    let s = this.sessions.get(id);
    if (!s) this.sessions.set(id, (s = new Session(id, { agent: agent ?? "?", promptCapabilities: {}, cwd: this.workspace })));
    if (title && !s.title) s.title = title;
    s.replaying = true;
    try {
      const resp = await this.peer.request("session/load", { sessionId: id, cwd: this.workspace, mcpServers: [], _meta: agent ? { parley: { agent } satisfies api.RequestMeta } : undefined });
      s.replaying = false;
      const loaded = this.adopt(id, resp);
      await this.loadChanges(loaded).catch(() => {}); // a session whose record is gone shows none
      return loaded;
    } catch (e) {
      this.sessions.delete(id);
      throw e;
    } finally {
      s.replaying = false;
    }
  }

  // loadChanges puts back the "N files changed" cards of a loaded conversation (the replay
  // carries the agent's updates, not parley's record of changes): each after the turn
  // whose prompt it names, in order; one it cannot place goes at the end.
  private async loadChanges(s: Session) {
    const { turns } = await this.call("_parley/changes", { sessionId: s.id });
    let from = 0;
    for (const t of turns) {
      if (t.undo || !t.files.length) continue;
      if (s.entries.some((e) => e.kind === "changes" && e.turn.number === t.number)) continue;
      const turn = { ...t, sessionId: s.id, promptId: 0 };
      const at = turnEnd(s, t.label, from);
      if (at < 0) {
        s.add({ kind: "changes", turn });
        continue;
      }
      s.insert(at, { kind: "changes", turn });
      from = at + 1;
    }
  }

  list(): Promise<{ sessions: SessionInfo[] }> {
    return this.peer.request("session/list", {});
  }

  // live is the conversations parley holds open now (another window's too), newest first.
  async live(): Promise<SessionInfo[]> {
    const { sessions } = await this.list();
    return sessions
      .filter((i) => parleyMeta<api.SessionListMeta>(i)?.live)
      .sort((a, b) => String(b.updatedAt ?? "").localeCompare(String(a.updatedAt ?? "")));
  }

  // carry forks the conversation, hands it to another agent or rewinds it: parley opens a
  // new session that goes on with it, which the page then loads like any other, and says
  // in it how it was carried.
  async carry(method: "_parley/fork" | "_parley/handoff" | "_parley/rewind", s: Session, params: Omit<api.CarryParams, "sessionId">): Promise<Session> {
    const r = await this.call(method, { sessionId: s.id, ...params });
    const from = s.title || s.meta.agentTitle || s.meta.agent;
    // Named after the conversation it carries on until parley names it (a fork and a
    // rewind are with the same agent: their tabs would read alike).
    const word = method === "_parley/fork" ? "fork" : method === "_parley/rewind" ? `before turn ${params.turn}` : "";
    const title = word ? (s.title ? `${s.title} (${word})` : word) : s.title;
    const next = await this.load(r.sessionId, r.agent, title || undefined);
    next.add({ kind: "notice", text: carriedText(method, r, from, params.turn), detail: r.how === "summarised" ? r.summary : undefined });
    return next;
  }

  // close closes the session in parley, then on the page: once its tab is gone, no other
  // window opened after finds it live.
  async close(s: Session) {
    await this.peer.request("session/close", { sessionId: s.id }).catch(() => {});
    this.sessions.delete(s.id);
    for (const cb of this.onSessions) cb();
  }

  // prompt sends blocks; parley shows them back (echo) when their turn starts, so a prompt
  // that waits in the queue appears in the conversation when it runs.
  prompt(s: Session, blocks: ContentBlock[]): Promise<any> {
    return this.peer.request("session/prompt", { sessionId: s.id, prompt: blocks, _meta: { parley: { echo: true } satisfies api.RequestMeta } });
  }

  cancel(s: Session) {
    this.peer.notify("session/cancel", { sessionId: s.id });
  }

  unqueue(s: Session, promptId: number) {
    return this.call("_parley/unqueue", { sessionId: s.id, promptId });
  }

  async setMode(s: Session, modeId: string) {
    await this.peer.request("session/set_mode", { sessionId: s.id, modeId });
    if (s.modes) s.modes = { ...s.modes, currentModeId: modeId };
    s.changed();
  }

  async setConfig(s: Session, configId: string, value: string | boolean) {
    const params: any = { sessionId: s.id, configId, value };
    if (typeof value === "boolean") params.type = "boolean";
    const resp = await this.peer.request("session/set_config_option", params);
    s.config = resp.configOptions ?? s.config;
    s.changed();
  }

  async setModel(s: Session, modelId: string) {
    await this.peer.request("session/set_model", { sessionId: s.id, modelId });
    if (s.models) s.models = { ...s.models, currentModelId: modelId };
    s.changed();
  }

  files(s: Session, query: string): Promise<api.FilesResult> {
    return this.call("_parley/files", { sessionId: s.id, query, limit: 30 });
  }

  signIn(s: Session, methodId: string, vars?: Record<string, string>) {
    return this.call("_parley/sign_in", { sessionId: s.id, methodId, vars });
  }

  diff(s: Session, path: string, turn: number): Promise<api.DiffResult> {
    return this.call("_parley/diff", { sessionId: s.id, path, turn });
  }

  file(s: Session, path: string): Promise<api.FileResult> {
    return this.call("_parley/file", { sessionId: s.id, path });
  }

  async undo(s: Session, turn: number, paths?: string[]) {
    await this.call("_parley/undo", { sessionId: s.id, turn, paths });
  }

  async keep(s: Session, turn: number, paths?: string[]) {
    await this.call("_parley/keep", { sessionId: s.id, turn, paths });
  }

  // refreshChanges reads every turn's changes again (after an undo or keep, from any view)
  // and updates the cards that show them.
  async refreshChanges(s: Session) {
    const { turns } = await this.call("_parley/changes", { sessionId: s.id });
    const byTurn = new Map(turns.map((t) => [t.number, t]));
    for (const e of s.entries) {
      if (e.kind !== "changes") continue;
      const t = byTurn.get(e.turn.number);
      if (t) (e.turn = { ...e.turn, ...t }), s.touch(e);
    }
  }

  agents(): Promise<api.AgentsResult> {
    return this.call("_parley/agents", {});
  }

  private askPermission(p: any, signal: AbortSignal): Promise<unknown> {
    const s = this.sessions.get(p.sessionId);
    if (!s) return Promise.resolve({ outcome: { outcome: "cancelled" } });
    return new Promise((resolve) => {
      const q = {
        request: p,
        answered: undefined as string | undefined,
        answer: (optionId: string | null) => {
          if (q.answered) return;
          const o = p.options.find((o: any) => o.optionId === optionId);
          q.answered = o ? `You chose: ${o.name}` : "Dismissed";
          done();
          resolve(optionId ? { outcome: { outcome: "selected", optionId } } : { outcome: { outcome: "cancelled" } });
        },
      };
      const withdraw = s.ask(q);
      const done = () => withdraw();
      signal.addEventListener("abort", () => {
        if (!q.answered) (q.answered = "Withdrawn"), done();
      });
    });
  }

  private elicit(p: any, signal: AbortSignal): Promise<unknown> {
    const s = this.sessions.get(p.sessionId) ?? [...this.sessions.values()][0];
    if (!s) return Promise.resolve({ action: "cancel" });
    return new Promise((resolve) => {
      const form = {
        request: p,
        answered: undefined as string | undefined,
        answer: (action: "accept" | "decline" | "cancel", content?: Record<string, unknown>) => {
          if (form.answered) return;
          form.answered = action === "accept" ? "Sent" : action === "decline" ? "Declined" : "Cancelled";
          s.touch(entry);
          resolve(action === "accept" && p.mode !== "url" ? { action, content: content ?? {} } : { action });
        },
      };
      const entry = s.add({ kind: "elicitation", form });
      s.asked();
      signal.addEventListener("abort", () => {
        if (!form.answered) (form.answered = "Withdrawn"), s.touch(entry);
      });
    });
  }
}

// carriedText says how a conversation came to this session.
export function carriedText(method: string, r: api.CarryResult, from: string, turn?: number): string {
  const what = method === "_parley/fork" ? `Forked from ${from}` : method === "_parley/handoff" ? `Handed off from ${from} to ${r.agent}` : `Rewound ${from} to before turn ${turn}`;
  const how: Record<string, string> = {
    fork: "the agent forked its own session",
    load: "the agent loaded its session",
    resume: "the agent resumed its session",
    seeded: "a new session, its first prompt carrying the conversation",
    summarised: "a new session, seeded with a summary (the conversation did not fit)",
  };
  const undone = r.undo?.files?.length ? `; ${r.undo.files.length} file${r.undo.files.length === 1 ? "" : "s"} brought back` : "";
  return `${what}: ${how[r.how] ?? r.how}${undone}.`;
}

// turnEnd is where a turn's changes card goes: before the user message that follows the
// first user message from index from whose text the label (the prompt on one line, cut)
// begins; -1 when no message matches.
function turnEnd(s: Session, label: string, from: number): number {
  const want = oneLine(label).replace(/…$/, "");
  for (let i = from; i < s.entries.length; i++) {
    const e = s.entries[i];
    if (e.kind !== "user") continue;
    const text = oneLine(e.blocks.map((b) => (b.type === "text" ? b.text : "")).join(""));
    if (!want || !text || !(text.startsWith(want) || want.startsWith(text))) continue;
    let j = i + 1;
    while (j < s.entries.length && s.entries[j].kind !== "user") j++;
    return j;
  }
  return -1;
}

function oneLine(t: string): string {
  return t.replace(/\s+/g, " ").trim();
}
