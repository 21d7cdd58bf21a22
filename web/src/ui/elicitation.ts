import { h } from "../dom";
import { parleyMeta } from "../meta";
import type { ElicitationMeta } from "../parleyapi";
import { pageRefusal } from "../pageurl";
import type { Entry } from "../session";
import type { Card } from "./card";

// ElicitationCard is the agent asking for structured input: a form built from its
// (flat) schema, or a page to open, which opens only once the user agrees. It says which
// agent asks, and always offers to decline and to cancel.
export class ElicitationCard implements Card {
  el = h("div", { class: "card elicitation" });
  constructor(private e: Entry & { kind: "elicitation" }, private agent: string) {}

  update() {
    const f = this.e.form;
    const req: any = f.request;
    const parts: HTMLElement[] = [h("div", { class: "q-title", text: `${this.agent} asks` }), h("div", { class: "el-message", text: req.message })];
    if (f.answered) {
      parts.push(h("div", { class: "q-answered", text: f.answered }));
      this.el.replaceChildren(...parts);
      return true;
    }
    if (req.mode === "url") {
      const url = String(req.url ?? "");
      const refusal = pageRefusal(url);
      const host = refusal ? "" : new URL(url).host;
      parts.push(h("div", { class: "el-url" }, h("code", { text: url })));
      if (refusal) parts.push(h("div", { class: "risk tier-high", text: `parley will not open it: ${refusal}` }));
      else parts.push(h("div", { class: host.includes("xn--") ? "risk tier-high" : "muted", text: `host: ${host}${host.includes("xn--") ? " — an internationalised name that may imitate another" : ""}` }));
      const open = () => {
        // Checked again at the click: only an http or https page is ever opened.
        if (pageRefusal(url)) return f.answer("decline");
        window.open(new URL(url).href, "_blank", "noopener,noreferrer");
        f.answer("accept");
      };
      parts.push(
        h(
          "div",
          { class: "q-buttons" },
          refusal ? null : h("button", { class: "allow", onclick: open }, "Open"),
          h("button", { class: "reject", onclick: () => f.answer("decline") }, "Decline"),
          h("button", { onclick: () => f.answer("cancel") }, "Cancel"),
        ),
      );
      this.el.replaceChildren(...parts);
      return true;
    }
    const schema = req.requestedSchema ?? {};
    const required: string[] = schema.required ?? [];
    const form = h("form", { class: "el-form" });
    const readers: (() => [string, unknown] | null)[] = [];
    // In the agent's order, which parley keeps (a JSON object's may be lost on the way).
    const order = parleyMeta<ElicitationMeta>(req)?.order ?? [];
    const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
    const props = Object.entries<any>(schema.properties ?? {}).sort(([a], [b]) => rank(a) - rank(b));
    for (const [name, prop] of props) {
      const label = prop.title || name;
      const id = `el-${this.e.key}-${name}`;
      const field = h("div", { class: "el-field" });
      const need = required.includes(name);
      if (prop.type === "boolean") {
        const input = h("input", { type: "checkbox", id, name });
        input.checked = !!prop.default;
        field.append(input, h("label", { for: id, text: label }));
        readers.push(() => [name, input.checked]);
      } else if (prop.type === "array") {
        const items = prop.items ?? {};
        const choices: { value: string; title: string }[] = items.enum ? items.enum.map((v: string) => ({ value: v, title: v })) : (items.anyOf ?? []).map((o: any) => ({ value: o.const, title: o.title ?? o.const }));
        const box = h("fieldset", {}, h("legend", { text: label }));
        const inputs: HTMLInputElement[] = [];
        for (const c of choices) {
          const cid = `${id}-${c.value}`;
          const input = h("input", { type: "checkbox", id: cid, value: c.value });
          input.checked = (prop.default ?? []).includes(c.value);
          inputs.push(input);
          box.append(h("div", {}, input, h("label", { for: cid, text: c.title })));
        }
        field.append(box);
        readers.push(() => [name, inputs.filter((i) => i.checked).map((i) => i.value)]);
      } else if (prop.enum || prop.oneOf) {
        const choices: { value: string; title: string }[] = prop.enum ? prop.enum.map((v: string) => ({ value: v, title: v })) : prop.oneOf.map((o: any) => ({ value: o.const, title: o.title ?? o.const }));
        const select = h("select", { id, name, required: need });
        if (!need) select.append(h("option", { value: "", text: "—" }));
        for (const c of choices) select.append(h("option", { value: c.value, text: c.title }));
        if (prop.default !== undefined) select.value = prop.default;
        field.append(h("label", { for: id, text: label }), select);
        readers.push(() => (select.value === "" ? null : [name, select.value]));
      } else if (prop.type === "number" || prop.type === "integer") {
        const input = h("input", { type: "number", id, name, required: need, min: prop.minimum, max: prop.maximum, step: prop.type === "integer" ? "1" : "any" });
        if (prop.default !== undefined) input.value = String(prop.default);
        field.append(h("label", { for: id, text: label }), input);
        readers.push(() => (input.value === "" ? null : [name, Number(input.value)]));
      } else if (prop.type === "string") {
        const type = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" }[prop.format as string] ?? "text";
        const input = h("input", { type, id, name, required: need, minlength: prop.minLength, maxlength: prop.maxLength });
        if (prop.default !== undefined) input.value = String(prop.default);
        field.append(h("label", { for: id, text: label }), input);
        readers.push(() => (input.value === "" ? null : [name, input.value]));
      } else {
        field.append(h("div", { class: "muted", text: `${label}: a field of a kind this page cannot show (${prop.type})` }));
      }
      if (prop.description) field.append(h("div", { class: "muted", text: prop.description }));
      form.append(field);
    }
    form.append(
      h(
        "div",
        { class: "q-buttons" },
        h("button", { type: "submit", class: "allow" }, "Submit"),
        h("button", { type: "button", class: "reject", onclick: () => f.answer("decline") }, "Decline"),
        h("button", { type: "button", onclick: () => f.answer("cancel") }, "Cancel"),
      ),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (!form.reportValidity()) return;
      const content: Record<string, unknown> = {};
      for (const r of readers) {
        const kv = r();
        if (kv) content[kv[0]] = kv[1];
      }
      f.answer("accept", content);
    });
    parts.push(form);
    this.el.replaceChildren(...parts);
    return true;
  }
}
