import { h } from "../dom";
import type { Entry } from "../session";
import type { Card } from "./card";

const mark: Record<string, string> = { pending: "☐", in_progress: "◐", completed: "☑" };

// PlanCard is the agent's plan as a checklist.
export class PlanCard implements Card {
  el = h("div", { class: "card plan" });
  constructor(private e: Entry & { kind: "plan" }) {}
  update() {
    const list = h("ul", { class: "plan-list" });
    for (const p of this.e.entries) {
      list.append(
        h("li", { class: `plan-${p.status} prio-${p.priority}` }, h("span", { class: "mark", "aria-label": p.status, text: mark[p.status] ?? "☐" }), h("span", { text: p.content })),
      );
    }
    const done = this.e.entries.filter((p) => p.status === "completed").length;
    this.el.replaceChildren(h("div", { class: "plan-head", text: `Plan · ${done}/${this.e.entries.length}` }), list);
    return true;
  }
}
