import type { ContentBlock } from "@agentclientprotocol/sdk";
import { h, clear } from "../dom";
import { renderMarkdown, StableSplitter } from "../markdown";
import { visible, VisibleStream } from "../visible";
import type { Entry, Session } from "../session";
import type { Actions, Card, PromptActions } from "./card";

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

// UserCard shows what the user sent as they wrote it (text, not Markdown). Once its turn
// has a number in parley's record, it offers to rewind the conversation to before it, or
// to edit it and send it again (a rewind, then the new prompt).
export class UserCard implements Card {
  el = h("div", { class: "msg user" });
  private editing = false;
  constructor(private e: Entry & { kind: "user" }, private actions: Actions, private session?: Session, private prompts?: PromptActions) {}
  update() {
    if (this.editing) return true;
    clear(this.el);
    for (const b of this.e.blocks) this.el.append(b.type === "text" ? h("div", { class: "user-text", text: b.text }) : blockView(b, this.actions));
    const turn = this.prompts && this.session?.turnOf(this.e);
    if (turn !== undefined && this.prompts) {
      const p = this.prompts;
      const rewind = h("button", { class: "small link rewind", title: `Undo turn ${turn} and every turn after it, and go on from before it in a new session (this one stays in Sessions)` }, "Rewind to here");
      const edit = h("button", { class: "small link edit", title: "Rewind to here, then send this message again as you edit it" }, "Edit and resend");
      rewind.onclick = () => this.busy(rewind, () => p.rewind(turn));
      edit.onclick = () => this.edit(turn, p);
      this.el.append(h("div", { class: "msg-actions" }, rewind, edit));
    }
    return true;
  }

  private text(): string {
    return this.e.blocks.map((b) => (b.type === "text" ? b.text : "")).join("");
  }

  private edit(turn: number, p: PromptActions) {
    this.editing = true;
    const input = h("textarea", { class: "input edit-input", rows: 3, "aria-label": "edit the message" });
    input.value = this.text();
    const send = h("button", { class: "allow" }, "Rewind and send");
    const cancel = h("button", {}, "Cancel");
    cancel.onclick = () => ((this.editing = false), this.update());
    send.onclick = () => this.busy(send, async () => {
      await p.resend(turn, input.value);
      this.editing = false;
      this.update();
    });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Escape") cancel.click();
      else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) e.preventDefault(), send.click();
    });
    this.el.replaceChildren(input, h("div", { class: "msg-actions" }, send, cancel));
    input.focus();
  }

  private async busy(b: HTMLButtonElement, f: () => Promise<void>) {
    b.disabled = true;
    try {
      await f();
    } catch (e) {
      this.el.append(h("div", { class: "notice error", text: String((e as Error)?.message ?? e) }));
    } finally {
      b.disabled = false;
    }
  }
}

// AgentCard streams the reply as Markdown: the settled part once, the last block again
// as it grows, at most as often as drawing it allows. A block longer than plainBlock
// (a flood, a dump) is shown as plain text, appended as it comes: rendering it as
// Markdown on every draw would cost more than a frame. So a reply of 100,000 chunks is
// drawn in short tasks and the page never freezes.
const plainBlock = 32 * 1024;
// plainPiece: plain text is laid out in pieces of about this size, each its own block, so
// that the browser lays out only the last one as text arrives (and skips those off
// screen). A piece ends at the end of a line, where a block's end shows nothing; only a
// line longer than maxPiece is cut, at a space if it has one.
const plainPiece = 4 * 1024;
const maxPiece = 4 * plainPiece;

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
  private plain: HTMLElement | null = null; // the live block, shown as text
  private plainTo = 0;
  private piece: HTMLElement | null = null; // the last piece of plain, still growing
  private pieceLen = 0;
  private plainSafe = new VisibleStream(); // the plain text made visible, piece after piece

  constructor(private e: Entry & ({ kind: "agent" } | { kind: "thought" }), thought = false) {
    if (thought) {
      const body = h("div", {}, this.done, this.live);
      this.el = h("details", { class: "msg thought" }, h("summary", { text: "Thinking" }), body);
    } else {
      this.el = h("div", { class: "msg agent" }, this.done, this.live, this.images);
    }
  }

  private appendPlain(text: string) {
    while (text) {
      if (!this.piece) {
        this.piece = h("div", { class: "piece" });
        this.pieceLen = 0;
        this.plain!.append(this.piece);
      }
      let n = text.length;
      let full = false;
      if (this.pieceLen + n > plainPiece) {
        const nl = text.indexOf("\n", Math.max(0, plainPiece - this.pieceLen - 1));
        if (nl >= 0 && this.pieceLen + nl < maxPiece) {
          n = nl + 1;
          full = true;
        } else if (this.pieceLen + n >= maxPiece) {
          n = maxPiece - this.pieceLen;
          const space = text.lastIndexOf(" ", n - 1);
          if (space > 0) n = space + 1;
          full = true;
        }
      }
      this.piece.append(this.plainSafe.append(text.slice(0, n)));
      this.pieceLen += n;
      text = text.slice(n);
      if (full) this.piece = null;
    }
  }

  update() {
    const text = this.e.text;
    if (text === this.drawnText && (this.e.kind !== "agent" || this.e.images.length === this.drawnImages)) return true;
    const now = performance.now();
    if (now - this.lastDraw < Math.max(32, this.cost * 4)) return false;
    const cut = this.splitter.advance(text);
    if (cut > this.renderedTo) {
      if (this.plain) {
        // The long block is over: it stays as the text it was shown as.
        this.appendPlain(text.slice(this.plainTo, cut));
        this.done.append(this.plain);
        this.plain = null;
      } else {
        const part = h("div");
        renderBlock(part, text.slice(this.renderedTo, cut));
        this.done.append(...part.childNodes);
      }
      this.renderedTo = cut;
    }
    const tail = text.length - this.renderedTo;
    if (this.plain || tail > plainBlock) {
      if (!this.plain) {
        this.plain = h("div", { class: "plain" });
        this.plainTo = this.renderedTo;
        this.piece = null;
        this.plainSafe.reset();
        this.live.replaceChildren(this.plain);
      }
      this.appendPlain(text.slice(this.plainTo));
      this.plainTo = text.length;
    } else {
      renderMarkdown(this.live, text.slice(this.renderedTo));
    }
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

// renderBlock renders settled text: as Markdown, or as plain text when it is too long.
function renderBlock(el: HTMLElement, text: string) {
  if (text.length > plainBlock) el.append(h("div", { class: "plain", text }));
  else renderMarkdown(el, text);
}

// NoticeCard is a line from parley; its detail (a hand-off's summary) folded under it.
export class NoticeCard implements Card {
  el = h("div", { class: "notice" });
  constructor(private e: Entry & { kind: "notice" }) {}
  update() {
    this.el.className = this.e.error ? "notice error" : "notice";
    this.el.textContent = visible(this.e.text);
    if (this.e.detail) this.el.append(h("details", { class: "notice-detail" }, h("summary", { text: "What was sent" }), h("div", { class: "user-text", text: this.e.detail })));
    return true;
  }
}
