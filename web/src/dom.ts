import { visible } from "./visible";

// Attributes whose values the page shows (a tooltip, a label read out).
const shownAttrs = new Set(["title", "alt", "aria-label", "placeholder"]);

// h builds an element. Text children become text nodes: nothing here parses HTML. Text,
// as children, the text attribute or an attribute shown, is made visible first: a control
// or an invisible character from the agent is shown by its code point (visible.ts).
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, any> | null = null,
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
      else if (k === "class") el.className = v;
      else if (k === "text") el.textContent = visible(String(v));
      else el.setAttribute(k, v === true ? "" : shownAttrs.has(k) ? visible(String(v)) : String(v));
    }
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === "string" ? visible(c) : c);
  return el;
}

export function clear(el: Element) {
  while (el.firstChild) el.firstChild.remove();
}

export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
