import type { Parley } from "../client";
import { h, clear } from "../dom";
import type { Session } from "../session";

// Settings is the row of the session's pickers (mode, model, the agent's other config
// options), the queue of prompts waiting behind the turn, and the usage of the context
// window with the cost. All of it is what the agent last reported.
export class Settings {
  el = h("div", { class: "settings" });
  queue = h("div", { class: "queue" });
  private drawn = -1;

  constructor(private parley: Parley, private session: Session) {
    session.onChange(() => this.draw());
    this.draw();
  }

  private draw() {
    const s = this.session;
    if (s.version === this.drawn) return;
    this.drawn = s.version;
    clear(this.el);
    const modeOption = s.config.find((o) => o.category === "mode" && o.type === "select");
    const modelOption = s.config.find((o) => o.category === "model" && o.type === "select");
    if (!modeOption && s.modes?.availableModes?.length) {
      this.el.append(this.picker("Mode", s.modes.currentModeId, s.modes.availableModes.map((m) => [m.id, m.name]), (v) => this.parley.setMode(s, v)));
    }
    if (!modelOption && s.models?.availableModels?.length) {
      this.el.append(this.picker("Model", s.models.currentModelId, s.models.availableModels.map((m: any) => [m.modelId, m.name]), (v) => this.parley.setModel(s, v)));
    }
    for (const o of s.config) {
      if (o.type === "select") {
        const values: [string, string][] = [];
        for (const x of o.options as any[]) {
          if (x.group !== undefined) for (const y of x.options) values.push([y.value, `${x.name}: ${y.name}`]);
          else values.push([x.value, x.name]);
        }
        this.el.append(this.picker(o.name, o.currentValue, values, (v) => this.parley.setConfig(s, o.id, v), o.description ?? undefined));
      } else if (o.type === "boolean") {
        const id = `cfg-${s.id}-${o.id}`;
        const box = h("input", { type: "checkbox", id, "data-config": o.id });
        box.checked = !!o.currentValue;
        box.addEventListener("change", () => this.parley.setConfig(s, o.id, box.checked).catch((e) => this.fail(e)));
        this.el.append(h("span", { class: "picker" }, box, h("label", { for: id, text: o.name })));
      }
    }
    if (s.usage) {
      const u = s.usage;
      const pct = u.size ? Math.round((u.used / u.size) * 100) : 0;
      const cost = u.cost ? ` · ${formatCost(u.cost.amount, u.cost.currency)}` : "";
      this.el.append(
        h("span", { class: `usage${pct >= 90 ? " warn" : ""}`, title: `${u.used} of ${u.size} tokens in the context window` }, h("meter", { min: 0, max: u.size || 1, value: u.used, "aria-label": "context used" }), ` ${compact(u.used)} / ${compact(u.size)} (${pct}%)${cost}`),
      );
    }
    if (s.status.state === "starting") this.el.append(h("span", { class: "muted status-text", text: s.status.text ?? "starting…" }));
    clear(this.queue);
    for (const q of s.queued) {
      this.queue.append(
        h("div", { class: "queued" }, h("span", { class: "muted", text: "queued: " }), h("span", { text: q.text }), h("button", { class: "small", title: "take it back", "aria-label": "take back the queued message", onclick: () => this.parley.unqueue(s, q.promptId) }, "×")),
      );
    }
  }

  private picker(label: string, current: string, values: [string, string][], set: (v: string) => Promise<unknown>, title?: string): HTMLElement {
    const select = h("select", { "aria-label": label, title });
    for (const [v, name] of values) select.append(h("option", { value: v, text: name }));
    select.value = current;
    select.addEventListener("change", () => set(select.value).catch((e) => this.fail(e)));
    return h("label", { class: "picker" }, h("span", { class: "muted", text: label + " " }), select);
  }

  private fail(e: unknown) {
    this.session.add({ kind: "notice", text: String((e as Error).message ?? e), error: true });
    this.drawn = -1;
    this.draw();
  }
}

function compact(n: number): string {
  return n >= 1e6 ? (n / 1e6).toFixed(1) + "M" : n >= 1e3 ? (n / 1e3).toFixed(1) + "k" : String(n);
}

function formatCost(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}
