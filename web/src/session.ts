// The state of one conversation as the page shows it, kept from what parley sends (the
// agent's own ACP updates, parley's _parley/* notifications) and nothing else: the
// components draw it, and what the user does goes back to parley as ACP requests.
import type {
  AvailableCommand, ContentBlock, PlanEntry, RequestPermissionRequest, SessionConfigOption,
  SessionModeState, SessionUpdate, ToolCall, ToolCallUpdate, UsageUpdate, CreateElicitationRequest,
} from "@agentclientprotocol/sdk";
import { parleyMeta } from "./meta";
import type { QueuedPrompt, SessionMeta, SignInMethod, StatusNotification, TerminalOutputNotification, ToolCallMeta, TurnChangesNotification } from "./parleyapi";

export type Entry =
  | { kind: "user"; key: number; version: number; blocks: ContentBlock[] }
  | { kind: "agent"; key: number; version: number; text: string; messageId?: string | null; images: ContentBlock[] }
  | { kind: "thought"; key: number; version: number; text: string; messageId?: string | null }
  | { kind: "tool"; key: number; version: number; call: ToolState }
  | { kind: "plan"; key: number; version: number; entries: PlanEntry[] }
  | { kind: "notice"; key: number; version: number; text: string; error?: boolean; detail?: string }
  | { kind: "question"; key: number; version: number; question: Question }
  | { kind: "elicitation"; key: number; version: number; form: Elicitation }
  | { kind: "signin"; key: number; version: number; signIn: SignIn }
  | { kind: "changes"; key: number; version: number; turn: TurnChanges };

// SignIn is a sign-in the agent asked for (_parley/sign_in_required), and once it is over
// how it went.
export interface SignIn {
  agent: string;
  methods: SignInMethod[];
  done?: string;
}

// TurnChanges is what a turn changed, as _parley/changes told it (and read again after an
// undo or keep).
export type TurnChanges = TurnChangesNotification;

// NewEntry is an entry before the session gives it its key and version.
type DistributiveOmit<T, K extends keyof any> = T extends any ? Omit<T, K> : never;
export type NewEntry = DistributiveOmit<Entry, "key" | "version">;

export interface ToolState extends ToolCall {
  started: number; // NaN: not known (a call replayed without its times)
  ended?: number;
  question?: Question; // a permission question about this call, while it is open
  answer?: string; // how the last question about it was answered
}

export interface Question {
  request: RequestPermissionRequest;
  answer(optionId: string | null): void; // null: dismissed
  answered?: string;
}

export interface Elicitation {
  request: CreateElicitationRequest;
  answer(action: "accept" | "decline" | "cancel", content?: Record<string, unknown>): void;
  answered?: string;
}

// Terminal is what parley told of a terminal's output (_parley/terminal_output).
export type Terminal = Pick<TerminalOutputNotification, "output" | "truncated" | "exitStatus">;

let keys = 0;

export class Session {
  entries: Entry[] = [];
  modes: SessionModeState | null = null;
  models: any = null;
  config: SessionConfigOption[] = [];
  commands: AvailableCommand[] = [];
  usage: UsageUpdate | null = null;
  title = "";
  running: number | null = null; // the prompt whose turn runs
  queued: QueuedPrompt[] = [];
  status: Pick<StatusNotification, "state" | "text"> = { state: "ready" };
  terminals = new Map<string, Terminal>();
  closed = false;
  /** bumped on every change of the settings, queue, status (not entries) */
  version = 0;
  private listeners: (() => void)[] = [];
  private entryListeners: (() => void)[] = [];
  private tools = new Map<string, Entry & { kind: "tool" }>();
  private questionListeners: (() => void)[] = [];
  // replaying: session/load's replay is coming in. A tool call's times are then parley's
  // (_meta.parley) or unknown, never the moment the page saw it.
  replaying = false;

  constructor(readonly id: string, public meta: SessionMeta) {}

  // onChange hears of changes to the settings, queue and status; onEntries of changes to
  // the conversation's entries (every chunk of a reply: kept cheap).
  onChange(cb: () => void) {
    this.listeners.push(cb);
  }
  onEntries(cb: () => void) {
    this.entryListeners.push(cb);
  }
  // onQuestion hears of every question put to the user (a permission, a form).
  onQuestion(cb: () => void) {
    this.questionListeners.push(cb);
  }
  asked() {
    for (const cb of this.questionListeners) cb();
  }
  changed() {
    this.version++;
    for (const cb of this.listeners) cb();
  }
  touch(e: Entry) {
    e.version++;
    for (const cb of this.entryListeners) cb();
  }

  add<E extends NewEntry>(e: E): Entry & E {
    const entry = { ...e, key: ++keys, version: 0 } as Entry & E;
    this.entries.push(entry);
    this.touch(entry);
    if (entry.kind === "changes") this.touchPrompt(this.entries.length - 1);
    return entry;
  }

  // turnOf is the record's number of the turn a user message began: that of the changes
  // card before the next user message (a turn that changed no file has none).
  turnOf(user: Entry): number | undefined {
    let i = this.entries.indexOf(user);
    if (i < 0) return undefined;
    for (i++; i < this.entries.length; i++) {
      const e = this.entries[i];
      if (e.kind === "user") return undefined;
      if (e.kind === "changes") return e.turn.number;
    }
    return undefined;
  }

  // touchPrompt redraws the user message of the turn whose entry is at index at: it
  // offers a rewind once its turn has a number.
  private touchPrompt(at: number) {
    for (let i = at - 1; i >= 0; i--) if (this.entries[i].kind === "user") return this.touch(this.entries[i]);
  }

  // insert puts an entry at index at (a card that belongs to an earlier turn).
  insert<E extends NewEntry>(at: number, e: E): Entry & E {
    const entry = { ...e, key: ++keys, version: 0 } as Entry & E;
    this.entries.splice(at, 0, entry);
    this.touch(entry);
    if (entry.kind === "changes") this.touchPrompt(at);
    return entry;
  }

  last(): Entry | undefined {
    return this.entries[this.entries.length - 1];
  }

  // apply folds one of the agent's updates into the state.
  apply(u: SessionUpdate) {
    switch (u.sessionUpdate) {
      case "user_message_chunk": {
        const last = this.last();
        if (last?.kind === "user" && (u as any).messageId == null && !this.sawAgentSinceUser) last.blocks.push(u.content), this.touch(last);
        else this.add({ kind: "user", blocks: [u.content] });
        this.sawAgentSinceUser = false;
        return;
      }
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        this.sawAgentSinceUser = true;
        const kind = u.sessionUpdate === "agent_message_chunk" ? "agent" : "thought";
        const mid = (u as any).messageId ?? null;
        let last = this.last();
        if (!(last && last.kind === kind && (last.messageId ?? null) === mid)) {
          last = kind === "agent" ? this.add({ kind: "agent" as const, text: "", messageId: mid, images: [] }) : this.add({ kind: "thought" as const, text: "", messageId: mid });
        }
        const c = u.content;
        if (c.type === "text") (last as any).text += c.text;
        else if (c.type === "image" && last.kind === "agent") last.images.push(c);
        else if (c.type === "resource_link") (last as any).text += `[${c.title || c.name}](${c.uri})`;
        this.touch(last);
        return;
      }
      case "tool_call": {
        this.sawAgentSinceUser = true;
        const existing = this.tools.get(u.toolCallId);
        if (existing) {
          Object.assign(existing.call, u);
          stamp(existing.call);
          this.touch(existing);
          return;
        }
        const call: ToolState = { ...u, started: this.replaying ? NaN : Date.now() };
        stamp(call);
        const e = this.add({ kind: "tool", call }) as Entry & { kind: "tool" };
        this.tools.set(u.toolCallId, e);
        return;
      }
      case "tool_call_update": {
        this.updateTool(u);
        return;
      }
      case "plan": {
        const last = [...this.entries].reverse().find((e) => e.kind === "plan") as (Entry & { kind: "plan" }) | undefined;
        if (last && this.entries.indexOf(last) > this.lastUserIndex()) {
          last.entries = u.entries;
          this.touch(last);
        } else this.add({ kind: "plan", entries: u.entries });
        return;
      }
      case "available_commands_update":
        this.commands = u.availableCommands;
        break;
      case "current_mode_update":
        if (this.modes) this.modes = { ...this.modes, currentModeId: u.currentModeId };
        break;
      case "config_option_update":
        this.config = u.configOptions;
        break;
      case "session_info_update":
        if (u.title !== undefined) this.title = u.title ?? "";
        break;
      case "usage_update":
        this.usage = u;
        break;
      default:
        if ((u as any).sessionUpdate === "notice" && typeof (u as any).message === "string") this.add({ kind: "notice", text: (u as any).message });
        return; // a kind this page does not draw
    }
    this.changed();
  }

  private sawAgentSinceUser = false;

  private lastUserIndex(): number {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i].kind === "user") return i;
    return -1;
  }

  updateTool(u: ToolCallUpdate) {
    const e = this.tools.get(u.toolCallId) ?? this.newTool(u);
    for (const [k, v] of Object.entries(u)) {
      if (v !== undefined && v !== null && k !== "sessionUpdate") (e.call as any)[k] = v;
    }
    if ((u.status === "completed" || u.status === "failed") && !e.call.ended && !this.replaying) e.call.ended = Date.now();
    stamp(e.call);
    this.touch(e);
  }

  private newTool(u: ToolCallUpdate): Entry & { kind: "tool" } {
    const call = { toolCallId: u.toolCallId, title: u.title ?? "tool call", started: this.replaying ? NaN : Date.now() } as ToolState;
    const e = this.add({ kind: "tool" as const, call }) as Entry & { kind: "tool" };
    this.tools.set(u.toolCallId, e);
    return e;
  }

  tool(id: string): (Entry & { kind: "tool" }) | undefined {
    return this.tools.get(id);
  }

  // ask shows a permission question: on its tool call's card when there is one.
  ask(q: Question): () => void {
    queueMicrotask(() => this.asked());
    const card = this.tools.get(q.request.toolCall.toolCallId);
    if (card) {
      card.call.question = q;
      this.touch(card);
      return () => {
        if (card.call.question === q) card.call.question = undefined;
        card.call.answer = q.answered;
        this.touch(card);
      };
    }
    const e = this.add({ kind: "question", question: q });
    return () => {
      const i = this.entries.indexOf(e);
      if (i >= 0 && !q.answered) this.entries.splice(i, 1);
      this.touch(e);
    };
  }

  setTerminal(id: string, t: Terminal) {
    this.terminals.set(id, t);
    for (const e of this.tools.values()) {
      if (e.call.content?.some((c) => c.type === "terminal" && c.terminalId === id)) this.touch(e);
    }
  }
}

// stamp takes a call's times from parley (_meta.parley.started, .ended: when parley saw it
// begin and end), which a replayed call carries: the page's clock saw only the replay.
function stamp(call: ToolState) {
  const m = parleyMeta<ToolCallMeta>(call);
  const started = m?.started ? Date.parse(m.started) : NaN;
  const ended = m?.ended ? Date.parse(m.ended) : NaN;
  if (Number.isFinite(started)) call.started = started;
  if (Number.isFinite(ended)) call.ended = ended;
}
