import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { Parley } from "../client";
import { h, clear } from "../dom";
import { VisibleStream } from "../visible";
import type { Session } from "../session";
import { type ParleyCommand, parleyCommands, runCommand } from "./commands";

interface Suggestion {
  label: string;
  detail?: string;
  insert: string;
  matches?: number[];
}

const historyKey = "parley.history";
const maxHistory = 200;

// Composer is where the user writes: Enter sends, Shift+Enter is a new line, Up and Down
// walk through what was sent before, @ mentions a file of the workspace (fuzzy search in
// parley), / completes the agent's commands, and images pasted or dropped are attached
// when the agent accepts them. A prompt sent while a turn runs waits in parley's queue.
export class Composer {
  el: HTMLElement;
  input = h("textarea", { class: "input", rows: 1, placeholder: "Message the agent — Enter sends, Shift+Enter new line, @ file, / command", "aria-label": "message" });
  private popup = h("ul", { class: "popup", role: "listbox", hidden: true });
  private attachments = h("div", { class: "attachments" });
  private sendButton = h("button", { class: "send", title: "Send (Enter)" }, "Send");
  private stopButton = h("button", { class: "stop", title: "Stop the agent (Esc)", hidden: true }, "Stop");
  private images: { mime: string; data: string }[] = [];
  private mentions = new Map<string, string>(); // "@path" → absolute path
  private suggestions: Suggestion[] = [];
  private selected = 0;
  private token: { start: number; kind: "@" | "/" } | null = null;
  private history: string[];
  private historyAt = -1;
  private draft = "";
  private queryNo = 0;
  private commands: ParleyCommand[] = []; // parley's own, from its table

  constructor(private parley: Parley, private session: Session, private carried?: (s: Session) => void) {
    try {
      this.history = JSON.parse(localStorage.getItem(historyKey) ?? "[]");
    } catch {
      this.history = [];
    }
    this.el = h("div", { class: "composer" }, this.popup, this.attachments, h("div", { class: "row" }, this.input, this.sendButton, this.stopButton));
    this.input.addEventListener("keydown", (e) => this.key(e));
    this.input.addEventListener("input", () => this.typed());
    this.input.addEventListener("paste", (e) => this.paste(e));
    this.el.addEventListener("dragover", (e) => e.preventDefault());
    this.el.addEventListener("drop", (e) => this.drop(e));
    this.sendButton.addEventListener("click", () => this.send());
    this.stopButton.addEventListener("click", () => parley.cancel(session));
    session.onChange(() => this.refresh());
    session.onQuestion(() => this.closePopup());
    this.refresh();
    parleyCommands(parley).then((c) => (this.commands = c));
  }

  focus() {
    this.input.focus();
  }

  // sendText sends text as if typed (an edited message sent again).
  async sendText(text: string) {
    this.setText(text);
    await this.send();
  }

  // A question's buttons are never under the / or @ list: a question that opens closes it,
  // and the list shown while one is open fits between the question and the composer.
  private roomAbove(): number {
    const top = this.el.getBoundingClientRect().top;
    const view = this.el.closest(".conversation");
    let bottom = 0;
    for (const b of view?.querySelectorAll(".q-buttons, .el-form") ?? []) {
      const r = b.getBoundingClientRect();
      if (r.height && r.bottom < top + 1) bottom = Math.max(bottom, r.bottom);
    }
    return top - Math.max(bottom, 0) - 6;
  }

  private refresh() {
    this.stopButton.hidden = this.session.running === null;
    this.input.disabled = this.session.closed;
  }

  private key(e: KeyboardEvent) {
    if (!this.popup.hidden) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        this.selected = (this.selected + (e.key === "ArrowDown" ? 1 : this.suggestions.length - 1)) % this.suggestions.length;
        this.drawPopup();
        return;
      }
      if (e.key === "Enter" || e.key === "Tab") {
        e.preventDefault();
        this.choose(this.selected);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        this.closePopup();
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.send();
      return;
    }
    if (e.key === "Escape" && this.session.running !== null) {
      e.preventDefault();
      this.parley.cancel(this.session);
      return;
    }
    const v = this.input.value;
    if (e.key === "ArrowUp" && this.input.selectionStart === 0 && this.history.length) {
      e.preventDefault();
      if (this.historyAt < 0) (this.draft = v), (this.historyAt = this.history.length);
      this.historyAt = Math.max(0, this.historyAt - 1);
      this.setText(this.history[this.historyAt]);
    } else if (e.key === "ArrowDown" && this.historyAt >= 0 && this.input.selectionEnd === v.length) {
      e.preventDefault();
      this.historyAt++;
      if (this.historyAt >= this.history.length) (this.historyAt = -1), this.setText(this.draft);
      else this.setText(this.history[this.historyAt]);
    }
  }

  private setText(t: string) {
    this.input.value = t;
    this.input.selectionStart = this.input.selectionEnd = t.length;
    this.grow();
  }

  private grow() {
    this.input.style.height = "auto";
    this.input.style.height = Math.min(this.input.scrollHeight, 240) + "px";
  }

  private typed() {
    this.grow();
    const caret = this.input.selectionStart ?? 0;
    const before = this.input.value.slice(0, caret);
    const at = /(^|\s)@([^\s@]*)$/.exec(before);
    const slash = /^\/(\S*)$/.exec(before);
    if (at) {
      this.token = { start: caret - at[2].length - 1, kind: "@" };
      this.queryFiles(at[2]);
    } else if (slash && (this.commands.length || this.session.commands.length)) {
      this.token = { start: 0, kind: "/" };
      const q = slash[1].toLowerCase();
      const mine = this.commands.map((c) => ({ name: c.name, detail: `${c.summary} — ${c.usage}` }));
      const agents = this.session.commands
        .filter((c) => !this.commands.some((p) => p.name === c.name)) // parley's own win a name both have
        .map((c) => ({ name: c.name, detail: "(agent) " + c.description + (c.input?.hint ? ` — ${c.input.hint}` : "") }));
      this.show(
        [...mine, ...agents]
          .filter((c) => c.name.toLowerCase().startsWith(q))
          .map((c) => ({ label: "/" + c.name, detail: c.detail, insert: "/" + c.name + " " })),
      );
    } else this.closePopup();
  }

  private async queryFiles(q: string) {
    const no = ++this.queryNo;
    try {
      const res = await this.parley.files(this.session, q);
      if (no !== this.queryNo || !this.token) return;
      this.show(res.files.map((f) => ({ label: f.path, insert: "@" + f.path + " ", matches: f.matches })));
    } catch {
      this.closePopup();
    }
  }

  private show(s: Suggestion[]) {
    this.suggestions = s.slice(0, 30);
    this.selected = 0;
    if (!this.suggestions.length) return this.closePopup();
    const room = this.roomAbove();
    if (room < 48) return this.closePopup(); // a question to answer first fills the view
    this.popup.style.maxHeight = Math.min(room, window.innerHeight * 0.4) + "px";
    this.popup.hidden = false;
    this.input.setAttribute("aria-expanded", "true");
    this.drawPopup();
  }

  private drawPopup() {
    clear(this.popup);
    this.suggestions.forEach((s, i) => {
      const label = h("span", { class: "label" });
      const marks = new Set(s.matches ?? []);
      const shown = new VisibleStream(); // each character made visible, judged by the one before
      [...s.label].forEach((ch, j) => {
        const t = shown.append(ch);
        if (!marks.has(j)) return label.append(t);
        const b = document.createElement("b");
        b.textContent = t;
        label.append(b);
      });
      const li = h("li", { role: "option", "aria-selected": i === this.selected ? "true" : "false", class: i === this.selected ? "sel" : "" }, label, s.detail ? h("span", { class: "detail", text: s.detail }) : null);
      li.addEventListener("mousedown", (e) => {
        e.preventDefault();
        this.choose(i);
      });
      this.popup.append(li);
    });
    (this.popup.children[this.selected] as HTMLElement | undefined)?.scrollIntoView({ block: "nearest" });
  }

  private closePopup() {
    this.popup.hidden = true;
    this.token = null;
    this.input.setAttribute("aria-expanded", "false");
  }

  private choose(i: number) {
    const s = this.suggestions[i];
    if (!s || !this.token) return;
    const caret = this.input.selectionStart ?? 0;
    const v = this.input.value;
    this.input.value = v.slice(0, this.token.start) + s.insert + v.slice(caret);
    const pos = this.token.start + s.insert.length;
    this.input.selectionStart = this.input.selectionEnd = pos;
    if (this.token.kind === "@") this.mentions.set("@" + s.label, joinPath(this.parley.workspace, s.label));
    this.closePopup();
    this.grow();
  }

  private paste(e: ClipboardEvent) {
    const files = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith("image/"));
    if (files.length) {
      e.preventDefault();
      files.forEach((f) => this.attach(f));
    }
  }

  private drop(e: DragEvent) {
    const files = [...(e.dataTransfer?.files ?? [])].filter((f) => f.type.startsWith("image/"));
    if (files.length) {
      e.preventDefault();
      files.forEach((f) => this.attach(f));
    }
  }

  private attach(f: File) {
    if (!this.session.meta.promptCapabilities?.image) {
      this.session.add({ kind: "notice", text: `${this.session.meta.agentTitle || this.session.meta.agent} does not accept images.`, error: true });
      return;
    }
    const r = new FileReader();
    r.onload = () => {
      const url = String(r.result);
      const data = url.slice(url.indexOf(",") + 1);
      const img = { mime: f.type, data };
      this.images.push(img);
      const chip = h("span", { class: "chip image" }, h("img", { src: url, alt: f.name }), h("button", { title: "remove", "aria-label": `remove ${f.name}`, onclick: () => {
        this.images = this.images.filter((x) => x !== img);
        chip.remove();
      } }, "×"));
      this.attachments.append(chip);
    };
    r.readAsDataURL(f);
  }

  private async send() {
    const text = this.input.value;
    if (!text.trim() && !this.images.length) return;
    if (!this.images.length && text.trim().startsWith("/") && this.commands.length) {
      // parley's own win a name the agent's commands have too, as in the terminal.
      if (await runCommand(this.parley, this.session, this.commands, text, this.parley.workspace, this.carried)) {
        this.input.value = "";
        this.grow();
        return;
      }
    }
    const blocks: ContentBlock[] = [{ type: "text", text }];
    for (const [mention, path] of this.mentions) {
      if (text.includes(mention)) blocks.push({ type: "resource_link", uri: "file://" + encodeURI(path), name: mention.slice(1) });
    }
    for (const img of this.images) blocks.push({ type: "image", mimeType: img.mime, data: img.data });
    if (text.trim()) {
      this.history = [...this.history.filter((x) => x !== text), text].slice(-maxHistory);
      try {
        localStorage.setItem(historyKey, JSON.stringify(this.history));
      } catch {
        /* private mode: history stays in memory */
      }
    }
    this.historyAt = -1;
    this.input.value = "";
    this.images = [];
    this.mentions.clear();
    clear(this.attachments);
    this.grow();
    try {
      const resp = await this.parley.prompt(this.session, blocks);
      const meta = resp?._meta?.parley;
      if (meta?.unqueued && !this.input.value) this.setText(text); // taken back: give the text back
      else if (resp?.stopReason && resp.stopReason !== "end_turn" && resp.stopReason !== "cancelled") {
        this.session.add({ kind: "notice", text: `The agent stopped: ${resp.stopReason.replace(/_/g, " ")}` });
      }
    } catch (e) {
      this.session.add({ kind: "notice", text: String((e as Error).message ?? e), error: true });
    }
  }
}

function joinPath(dir: string, rel: string): string {
  return dir.endsWith("/") ? dir + rel : dir + "/" + rel;
}
