import type { Parley } from "../client";
import { h } from "../dom";
import type { Entry, Session } from "../session";
import type { Card } from "./card";

// SignInCard offers the agent's sign-in methods: its own flow (a click), variables to
// give (typed here, secrets hidden), or a program to run in a terminal, which a page
// cannot do: it shows the whole of what that program runs (program, arguments, variables,
// directory, as parley made them visible) and names the command that runs it, which
// shows it again and asks. A method parley refuses says why, with nothing to click.
export class SignInCard implements Card {
  el = h("div", { class: "card signin" });
  constructor(private e: Entry & { kind: "signin" }, private parley: Parley, private session: Session) {}
  update() {
    const si = this.e.signIn;
    const parts: (HTMLElement | string)[] = [h("div", { class: "q-title", text: `${si.agent} needs you to sign in` })];
    if (si.done) {
      parts.push(h("div", { class: "q-answered", text: si.done }));
      this.el.replaceChildren(...parts);
      return true;
    }
    for (const m of si.methods) {
      const row = h("div", { class: "signin-method" }, h("strong", { text: m.name }), m.description ? h("span", { class: "muted", text: " " + m.description }) : null);
      if (m.refused) {
        row.append(h("div", { class: "risk tier-critical", text: "parley refuses it: " + m.refused }));
        if (m.run) row.append(h("div", { class: "muted", text: "It would run:" }), h("pre", { text: m.run.join("\n") }));
      } else if (m.kind === "terminal") {
        if (m.run) row.append(h("div", { class: "muted", text: "It runs this program in a terminal:" }), h("pre", { text: m.run.join("\n") }));
        row.append(h("div", { class: "muted", text: "Run in a terminal (it shows this again and asks first), then send your message again:" }), h("pre", { text: ["parley", ...m.command].join(" ") }));
      } else if (m.kind === "env_var") {
        const inputs = (m.fields ?? []).map((v) => {
          const input = h("input", { type: v.secret === false ? "text" : "password", "aria-label": v.label || v.name, placeholder: v.label || v.name, autocomplete: "off" });
          row.append(h("label", {}, h("code", { text: v.name }), " ", input));
          return [v.name, input] as const;
        });
        row.append(h("button", { class: "allow", onclick: () => this.go(m.id, Object.fromEntries(inputs.filter(([, i]) => i.value).map(([n, i]) => [n, i.value]))) }, "Sign in"));
      } else {
        row.append(h("button", { class: "allow", onclick: () => this.go(m.id) }, "Sign in"));
      }
      parts.push(row);
    }
    this.el.replaceChildren(...parts);
    return true;
  }

  private go(id: string, vars?: Record<string, string>) {
    this.parley.signIn(this.session, id, vars).catch((err) => this.session.add({ kind: "notice", text: String(err.message ?? err), error: true }));
  }
}
