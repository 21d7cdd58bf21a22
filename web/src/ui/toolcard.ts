import { h, clear, duration } from "../dom";
import { diffLines, hunks } from "../diff";
import { parleyMeta } from "../meta";
import type { ToolCallMeta } from "../parleyapi";
import type { Entry, Question, Session, ToolState } from "../session";
import type { Actions, Card } from "./card";
import { keepView } from "./keep";
import { blockView } from "./message";
import { questionView } from "./question";
import { commandOutputView, isCommandOutput } from "./tooloutput";

const statusIcon: Record<string, string> = { pending: "○", in_progress: "◐", completed: "✓", failed: "✗", refused: "⊘", cancelled: "■" };

// Outcome is parley's word on how a call ended (_meta.parley.outcome, .outcomeText: done,
// failed, refused by you or a rule, not run: no one to ask, cancelled), which every view
// shows alike. A refused call never ran, whatever status the agent gave it.
type Outcome = Partial<ToolCallMeta> & { outcome?: string; outcomeText?: string };

function shownStatus(c: ToolState): string {
  const status = c.status ?? "pending";
  const o = parleyMeta<Outcome>(c)?.outcome;
  if (!o || o === "done" || o === "failed") return status;
  return o === "cancelled" ? "cancelled" : "refused";
}
const kindIcon: Record<string, string> = {
  read: "📖", edit: "✎", delete: "🗑", move: "⇄", search: "🔍", execute: "▶", think: "💭", fetch: "🌐", switch_mode: "⇆", other: "⚙",
};

// ToolCard is one tool call: its state, title, duration, input, what it reported (text,
// diffs, a terminal's live output), the files it touched, and the permission question
// about it while one is open.
export class ToolCard implements Card {
  el = h("div", { class: "card tool" });
  constructor(private e: Entry & { kind: "tool" }, private session: Session, private actions: Actions) {}

  update() {
    const c = this.e.call;
    const status = shownStatus(c);
    const outcomeText = parleyMeta<Outcome>(c)?.outcomeText;
    this.el.className = `card tool ${status}${c.question ? " asking" : ""}`;
    this.el.dataset.toolCallId = c.toolCallId;
    // The sections the user opened and the text they selected outlive the redraw.
    const kept = keepView(this.el);
    clear(this.el);
    // A replayed call without parley's times has no duration to show (never "0 ms").
    // A refused call never ran: it has no duration either.
    const took = c.ended && Number.isFinite(c.started) && status !== "refused" ? duration(Math.max(0, Math.round(c.ended - c.started))) : "";
    const head = h(
      "div",
      { class: "tool-head" },
      h("span", { class: `status ${status}`, title: status.replace("_", " "), role: "img", "aria-label": status.replace("_", " ") }, statusIcon[status] ?? "?"),
      h("span", { class: "kind", title: c.kind ?? "other" }, kindIcon[c.kind ?? "other"] ?? "⚙"),
      h("span", { class: "title", text: toolTitle(c) }),
      outcomeText && status !== "completed" ? h("span", { class: `outcome ${status}`, text: outcomeText }) : null,
      took && h("span", { class: "took", text: took }),
    );
    this.el.append(head);
    if (c.rawInput !== undefined && c.rawInput !== null) {
      this.el.append(h("details", { class: "input" }, h("summary", { text: "Input" }), h("pre", { text: JSON.stringify(c.rawInput, null, 2) })));
    }
    for (const item of c.content ?? []) {
      if (item.type === "content" && isCommandOutput(c.kind, item.content)) this.el.append(commandOutputView(item.content.text));
      else if (item.type === "content") this.el.append(h("div", { class: "tool-content" }, blockView(item.content, this.actions)));
      else if (item.type === "diff") this.el.append(diffView(item.path, item.oldText ?? null, item.newText, this.actions));
      else if (item.type === "terminal") this.el.append(this.terminalView(item.terminalId));
    }
    if (c.locations?.length) {
      const locs = h("div", { class: "locations" });
      for (const l of c.locations) {
        locs.append(h("button", { class: "chip file", title: l.path, onclick: () => this.actions.openFile(l.path, l.line ?? undefined) }, shortPath(l.path) + (l.line ? `:${l.line}` : "")));
      }
      this.el.append(locs);
    }
    if (c.rawOutput !== undefined && c.rawOutput !== null && !(c.content ?? []).length) {
      this.el.append(h("details", { class: "input" }, h("summary", { text: "Output" }), h("pre", { text: typeof c.rawOutput === "string" ? c.rawOutput : JSON.stringify(c.rawOutput, null, 2) })));
    }
    if (c.question) this.el.append(questionView(c.question, this.actions, false));
    else if (c.answer) this.el.append(h("div", { class: "q-answered", text: c.answer }));
    kept.restore();
    return true;
  }

  private terminalView(id: string): HTMLElement {
    const t = this.session.terminals.get(id);
    const pre = h("pre", { class: "terminal", "data-terminal-id": id, text: t ? t.output : "" });
    const foot = t?.exitStatus
      ? h("div", { class: "term-exit", text: t.exitStatus.signal ? `killed by ${t.exitStatus.signal}` : `exit ${t.exitStatus.exitCode ?? "?"}` })
      : h("div", { class: "term-exit muted", text: "running…" });
    return h("div", { class: "term" }, t?.truncated ? h("div", { class: "muted", text: "… (the start was cut)" }) : null, pre, foot);
  }
}

function shortPath(p: string): string {
  const parts = p.split("/");
  return parts.length > 3 ? "…/" + parts.slice(-2).join("/") : p;
}

export function diffView(path: string, oldText: string | null, newText: string, actions: Actions): HTMLElement {
  const table = h("div", { class: "diff-lines" });
  for (const l of hunks(diffLines(oldText ?? "", newText))) {
    if (!l) {
      table.append(h("div", { class: "gap", text: "⋯" }));
      continue;
    }
    table.append(h("div", { class: `dl ${l.op === "+" ? "add" : l.op === "-" ? "del" : "ctx"}` }, h("span", { class: "op", text: l.op }), h("span", { text: l.text })));
  }
  return h(
    "div",
    { class: "diff" },
    h(
      "div",
      { class: "diff-head" },
      h("button", { class: "link", title: path, onclick: () => actions.openFile(path) }, shortPath(path)),
      oldText === null ? h("span", { class: "muted", text: " (new file)" }) : null,
      h("button", { class: "small", onclick: () => actions.openDiff(path, oldText, newText) }, "Open diff"),
    ),
    table,
  );
}

export type { Question };

// toolTitle is the agent's title when it says what the call does; where it is only its
// tool's name (one word: "run_terminal_command", "Bash") or nothing, the call as parley's
// other views name it (_meta.parley: "Running `go test ./...`"), in the past once done.
function toolTitle(c: ToolState): string {
  const title = (c.title ?? "").trim();
  if (/\s/.test(title)) return title;
  const m = parleyMeta<ToolCallMeta>(c);
  const said = c.status === "completed" ? m?.pastTense : m?.invocation;
  return said || title || "tool call";
}
