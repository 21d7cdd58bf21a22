// The agent's Markdown, made safe: raw HTML is shown as text (html: false), links work
// only for http(s) and mailto (javascript:, data: and the rest are inert text), images
// only from data the agent sent (data:image/...), never fetched from anywhere. Code
// blocks are highlighted by tokenizing into text nodes after rendering. The text is made
// visible before it is parsed (visible.ts): no control or invisible character reaches the
// page, in prose, code or link text.
import MarkdownIt from "markdown-it";
import { highlightInto } from "./highlight";
import { visible } from "./visible";

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

const safeLink = /^(https?:|mailto:)/i;
const safeImage = /^data:image\/(png|jpe?g|gif|webp);base64,/i;

md.validateLink = (url: string) => {
  const u = url.trim();
  return safeLink.test(u) || safeImage.test(u) || /^#/.test(u);
};

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const t = tokens[idx];
  const href = String(t.attrGet("href") ?? "");
  if (!safeLink.test(href) && !href.startsWith("#")) t.attrSet("href", "#"); // a data: URL is only for images
  t.attrSet("target", "_blank");
  t.attrSet("rel", "noopener noreferrer nofollow");
  return defaultLinkOpen(tokens, idx, options, env, self);
};
md.renderer.rules.image = (tokens, idx) => {
  const t = tokens[idx];
  const src = String(t.attrGet("src") ?? "");
  const alt = md.utils.escapeHtml(t.content);
  if (!safeImage.test(src)) return `<span class="img-blocked" title="images are shown only from data the agent sent">[image: ${alt}]</span>`;
  return `<img src="${md.utils.escapeHtml(src)}" alt="${alt}">`;
};
// Code is left for highlightInto: the fence renders an empty element that carries it.
md.renderer.rules.fence = (tokens, idx) => {
  const t = tokens[idx];
  const lang = md.utils.escapeHtml(String(t.info).trim().split(/\s+/)[0] ?? "");
  return `<pre class="code" data-lang="${lang}"><code data-fence="${idx}"></code></pre>`;
};

export function renderMarkdown(el: HTMLElement, text: string) {
  const env = {};
  const tokens = md.parse(visible(text), env);
  el.innerHTML = md.renderer.render(tokens, md.options, env);
  for (const code of el.querySelectorAll<HTMLElement>("code[data-fence]")) {
    const t = tokens[Number(code.dataset.fence)];
    highlightInto(code, String(t.content), String(t.info).trim().split(/\s+/)[0] ?? "");
  }
}

// StableSplitter finds, as a reply streams in, where its settled part ends: after the
// last blank line outside a code fence. What comes before will not change, so it is
// rendered once; only the rest is rendered again as chunks arrive. It scans each
// character once.
export class StableSplitter {
  private scanned = 0;
  private fence = false;
  cut = 0;

  advance(text: string): number {
    let pos = this.scanned;
    for (;;) {
      const nl = text.indexOf("\n", pos);
      if (nl < 0) break;
      const line = text.slice(pos, nl);
      if (/^\s*(```|~~~)/.test(line)) this.fence = !this.fence;
      else if (!this.fence && line.trim() === "") this.cut = nl + 1;
      pos = nl + 1;
    }
    this.scanned = pos;
    return this.cut;
  }
}
