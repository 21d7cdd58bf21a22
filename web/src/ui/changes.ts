import type { Parley } from "../client";
import { h } from "../dom";
import type { ChangedFile } from "../parleyapi";
import type { Entry, Session } from "../session";
import type { Actions, Card } from "./card";
import { diffView } from "./toolcard";

const kindWord: Record<string, string> = { A: "created", M: "changed", D: "deleted" };

// ChangesCard is what a turn changed in the workspace: each file with its lines added and
// removed, its mode when the turn changed it, its diff on demand, undo and keep for the
// turn or one file. A change that makes git run code (a hook, core.fsmonitor...) is
// flagged on its file and in the card's head: the user's next git command would run it,
// outside any turn and any permission.
export class ChangesCard implements Card {
  el = h("div", { class: "card changes" });
  private open = new Map<string, HTMLElement>();
  constructor(private e: Entry & { kind: "changes" }, private parley: Parley, private session: Session, private actions: Actions) {}

  update() {
    const t = this.e.turn;
    const pending = t.files.filter((c) => c.status === "pending");
    const head = h(
      "div",
      { class: "changes-head" },
      h("strong", { text: `${t.files.length} file${t.files.length === 1 ? "" : "s"} changed` }),
      pending.some((c) => c.undoable) ? h("button", { class: "small", onclick: () => this.act(() => this.parley.undo(this.session, t.number)) }, "Undo all") : null,
      pending.length ? h("button", { class: "small", onclick: () => this.act(() => this.parley.keep(this.session, t.number)) }, "Keep all") : null,
    );
    const runners = t.files.filter((c) => c.runsCode);
    const warning = runners.length
      ? h("div", { class: "notice warn runs-code-head", role: "alert", text: `⚠ ${runners.length === 1 ? "1 change makes" : `${runners.length} changes make`} git run code: look at ${runners.length === 1 ? "it" : "them"} before running git here` })
      : null;
    this.el.classList.toggle("runs-code", runners.length > 0);
    const list = h("ul", { class: "changes-list" });
    for (const c of t.files) {
      const li = h(
        "li",
        { class: `change ${c.status}${c.runsCode ? " runs-code" : ""}` },
        h("button", { class: "link", title: c.path, onclick: () => this.actions.openFile(c.path) }, c.rel),
        h("span", { class: "muted", text: ` ${kindWord[c.kind] ?? c.kind}` }),
        c.added || c.removed || c.mode ? h("span", { class: "counts" }, h("span", { class: "plus", text: ` +${c.added}` }), h("span", { class: "minus", text: ` −${c.removed}` })) : null,
        c.mode ? h("span", { class: "mode", text: ` mode ${c.mode}` }) : null,
        c.status !== "pending" ? h("span", { class: "muted", text: ` (${c.status})` }) : null,
        h("button", { class: "small", onclick: () => this.toggleDiff(c, li) }, "Diff"),
        c.status === "pending" && c.undoable ? h("button", { class: "small", onclick: () => this.act(() => this.parley.undo(this.session, t.number, [c.path])) }, "Undo") : null,
        c.runsCode ? runsCodeNote(c.runsCode) : null,
      );
      const shown = this.open.get(c.path);
      if (shown) li.append(shown);
      list.append(li);
    }
    this.el.replaceChildren(head, warning ?? "", list, t.error ? h("div", { class: "notice error", text: t.error }) : "");
    return true;
  }

  // toggleDiff shows or hides the file's diff (under the file's line, which flags what makes
  // git run code), headed by its mode, which a diff of its text cannot show.
  private async toggleDiff(c: ChangedFile, li: HTMLElement) {
    const path = c.path;
    const shown = this.open.get(path);
    if (shown) {
      shown.remove();
      this.open.delete(path);
      return;
    }
    try {
      const d = await this.parley.diff(this.session, path, this.e.turn.number);
      const same = d.before !== null && d.before === d.after; // a mode alone changed: no line to show
      const text =
        same ? null
        : d.after !== null || d.before !== null ? diffView(path, d.before, d.after ?? "", this.actions)
        : h("div", { class: "muted", text: d.note ?? "no diff to show" });
      const view = h("div", { class: "change-diff" }, c.mode ? h("div", { class: "mode", text: `mode ${c.mode}${same ? ", the text did not change" : ""}` }) : null, text);
      this.open.set(path, view);
      li.append(view);
    } catch (e) {
      li.append(h("div", { class: "notice error", text: String((e as Error).message ?? e) }));
    }
  }

  private act(f: () => Promise<void>) {
    f().catch((e) => this.session.add({ kind: "notice", text: String(e.message ?? e), error: true }));
  }
}

// runsCodeNote is the flag of a change that makes git run code, with the record's reason
// (made visible by h, as all the agent's text is: the reason can quote what it wrote).
function runsCodeNote(reason: string): HTMLElement {
  return h("div", { class: "runs-code-note", text: `⚠ makes git run code: ${reason}` });
}
