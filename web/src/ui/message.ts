import type { ContentBlock } from "@agentclientprotocol/sdk";
import { h, clear } from "../dom";
import { renderMarkdown, StableSplitter } from "../markdown";
import type { Entry } from "../session";
import type { Actions, Card } from "./card";

// blockView shows one content block of a message: text as Markdown, an image from the
// data it carries, a file as a link that opens it.
export function blockView(b: ContentBlock, actions: Actions): HTMLElement {
  switch (b.type) {
    case "text": {
      const el = h("div", { class: "md" });
      renderMarkdown(el, b.text);
      return el;
    }
    case "image":
      return imageView(b.mimeType, b.data);
    case "resource_link":
      return fileChip(b.uri, b.name, actions);
    case "resource":
      return fileChip(b.resource.uri, b.resource.uri.split("/").pop() ?? b.resource.uri, actions);
    default:
      return h("div", { class: "muted", text: `[${b.type}]` });
  }
}

export function imageView(mime: string, data: string): HTMLElement {
  if (!/^image\/(png|jpeg|gif|webp)$/.test(mime)) return h("span", { class: "muted", text: `[image ${mime}]` });
  return h("img", { class: "shot", src: `data:${mime};base64,${data}`, alt: "image" });
}

function fileChip(uri: string, name: string, actions: Actions): HTMLElement {
  const path = uri.startsWith("file://") ? decodeURIComponent(uri.slice(7)) : uri;
  return h("button", { class: "chip file", title: path, onclick: () => actions.openFile(path) }, "@" + name);
}

// UserCard shows what the user sent as they wrote it (text, not Markdown).
export class UserCard implements Card {
  el = h("div", { class: "msg user" });
  constructor(private e: Entry & { kind: "user" }, private actions: Actions) {}
  update() {
    clear(this.el);
    for (const b of this.e.blocks) this.el.append(b.type === "text" ? h("div", { class: "user-text", text: b.text }) : blockView(b, this.actions));
    return true;
  }
}

// AgentCard streams the reply as Markdown: the settled part once, the last block again
// as it grows, at most as often as drawing it allows (a reply of 100,000 chunks is drawn
// a few dozen times, each draw a short task).
export class AgentCard implements Card {
  el: HTMLElement;
  private done = h("div", { class: "md" });
  private live = h("div", { class: "md" });
  private images = h("div", { class: "images" });
  private splitter = new StableSplitter();
  private renderedTo = 0;
  private lastDraw = 0;
  private cost = 0;
  private drawnText = "";
  private drawnImages = 0;

  constructor(private e: Entry & ({ kind: "agent" } | { kind: "thought" }), thought = false) {
    if (thought) {
      const body = h("div", {}, this.done, this.live);
      this.el = h("details", { class: "msg thought" }, h("summary", { text: "Thinking" }), body);
    } else {
      this.el = h("div", { class: "msg agent" }, this.done, this.live, this.images);
    }
  }

  update() {
    const text = this.e.text;
    if (text === this.drawnText && (this.e.kind !== "agent" || this.e.images.length === this.drawnImages)) return true;
    const now = performance.now();
    if (now - this.lastDraw < Math.max(32, this.cost * 4)) return false;
    const cut = this.splitter.advance(text);
    if (cut > this.renderedTo) {
      const part = h("div");
      renderMarkdown(part, text.slice(this.renderedTo, cut));
      this.done.append(...part.childNodes);
      this.renderedTo = cut;
    }
    renderMarkdown(this.live, text.slice(this.renderedTo));
    if (this.e.kind === "agent") {
      for (const img of this.e.images.slice(this.drawnImages)) if (img.type === "image") this.images.append(imageView(img.mimeType, img.data));
      this.drawnImages = this.e.images.length;
    }
    this.drawnText = text;
    this.lastDraw = performance.now();
    this.cost = this.lastDraw - now;
    return true;
  }
}

export class NoticeCard implements Card {
  el = h("div", { class: "notice" });
  constructor(private e: Entry & { kind: "notice" }) {}
  update() {
    this.el.className = this.e.error ? "notice error" : "notice";
    this.el.textContent = this.e.text;
    return true;
  }
}
