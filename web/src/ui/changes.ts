import type { Parley } from "../client";
import { h } from "../dom";
import type { Entry, Session } from "../session";
import type { Actions, Card } from "./card";
import { diffView } from "./toolcard";

const kindWord: Record<string, string> = { A: "created", M: "changed", D: "deleted" };

// ChangesCard is what a turn changed in the workspace: each file with its lines added and
// removed, its diff on demand, undo and keep for the turn or one file.
export class ChangesCard implements Card {
  el = h("div", { class: "card changes" });
  private open = new Map<string, HTMLElement>();
  constructor(private e: Entry & { kind: "changes" }, private parley: Parley, private session: Session, private actions: Actions) {}

  update() {
    const t = this.e.turn;
    const pending = t.changes.filter((c) => c.status === "pending");
    const head = h(
      "div",
      { class: "changes-head" },
      h("strong", { text: `${t.changes.length} file${t.changes.length === 1 ? "" : "s"} changed` }),
      pending.some((c) => c.undoable) ? h("button", { class: "small", onclick: () => this.act(() => this.parley.undo(this.session, t.turn)) }, "Undo all") : null,
      pending.length ? h("button", { class: "small", onclick: () => this.act(() => this.parley.keep(this.session, t.turn)) }, "Keep all") : null,
    );
    const list = h("ul", { class: "changes-list" });
    for (const c of t.changes) {
      const li = h(
        "li",
        { class: `change ${c.status}` },
        h("button", { class: "link", title: c.path, onclick: () => this.actions.openFile(c.path) }, c.rel),
        h("span", { class: "muted", text: ` ${kindWord[c.kind] ?? c.kind}` }),
        c.added || c.removed ? h("span", { class: "counts" }, h("span", { class: "plus", text: ` +${c.added}` }), h("span", { class: "minus", text: ` −${c.removed}` })) : null,
        c.status !== "pending" ? h("span", { class: "muted", text: ` (${c.status})` }) : null,
        h("button", { class: "small", onclick: () => this.toggleDiff(c.path, li) }, "Diff"),
        c.status === "pending" && c.undoable ? h("button", { class: "small", onclick: () => this.act(() => this.parley.undo(this.session, t.turn, [c.path])) }, "Undo") : null,
      );
      const shown = this.open.get(c.path);
      if (shown) li.append(shown);
      list.append(li);
    }
    this.el.replaceChildren(head, list, t.error ? h("div", { class: "notice error", text: t.error }) : "");
    return true;
  }

  private async toggleDiff(path: string, li: HTMLElement) {
    const shown = this.open.get(path);
    if (shown) {
      shown.remove();
      this.open.delete(path);
      return;
    }
    try {
      const d = await this.parley.diff(this.session, path, this.e.turn.turn);
      const view = d.new !== null || d.old !== null ? diffView(path, d.old, d.new ?? "", this.actions) : h("div", { class: "muted", text: d.note ?? "no diff to show" });
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
