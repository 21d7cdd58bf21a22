import { h } from "../dom";
import { parleyMeta } from "../meta";
import type { RiskMeta } from "../parleyapi";
import type { Entry, Question } from "../session";
import type { Actions, Card } from "./card";
import { diffView } from "./toolcard";

// questionView is a permission question: what the agent wants to do (the command that
// would run, or the edit as a diff), how risky parley judges it, and one button per
// answer parley accepts.
export function questionView(q: Question, actions: Actions, standalone: boolean): HTMLElement {
  const req = q.request;
  const risk: Partial<RiskMeta> = parleyMeta<RiskMeta>(req) ?? {};
  const el = h("div", { class: "question", role: "group", "aria-label": "permission question" });
  if (standalone) el.append(h("div", { class: "q-title", text: req.toolCall.title ?? "The agent asks for permission" }));
  el.append(h("div", { class: "q-ask", text: "Allow this?" }));
  if (risk.command) el.append(h("pre", { class: "q-command", text: risk.command }));
  for (const c of req.toolCall.content ?? []) {
    if (c.type === "diff") el.append(diffView(c.path, c.oldText ?? null, c.newText, actions));
  }
  if (risk.tier && risk.tier !== "none") {
    el.append(
      h(
        "div",
        { class: `risk tier-${risk.tier}` },
        h("strong", { text: `Risk: ${risk.tier}` }),
        risk.reasons?.length ? h("span", { text: " — " + risk.reasons.join("; ") }) : null,
      ),
    );
  }
  if (risk.runsEditableCode) el.append(h("div", { class: "muted", text: "It runs code the agent can change, so it cannot be allowed for always." }));
  if (q.answered) {
    el.append(h("div", { class: "q-answered", text: q.answered }));
    return el;
  }
  const buttons = h("div", { class: "q-buttons" });
  for (const o of req.options) {
    const allow = o.kind.startsWith("allow");
    buttons.append(
      h(
        "button",
        {
          class: allow ? "allow" : "reject",
          "data-option": o.optionId,
          title: o.kind.endsWith("always") && risk.always ? `covers ${risk.always}` : undefined,
          onclick: () => q.answer(o.optionId),
        },
        o.name,
      ),
    );
  }
  el.append(buttons);
  return el;
}

export class QuestionCard implements Card {
  el = h("div", { class: "card question-card" });
  constructor(private e: Entry & { kind: "question" }, private actions: Actions) {}
  update() {
    this.el.replaceChildren(questionView(this.e.question, this.actions, true));
    return true;
  }
}
