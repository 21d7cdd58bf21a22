import type { Parley } from "../client";
import { diffLines, hunks, type DiffLine } from "../diff";
import { h } from "../dom";
import type { Session } from "../session";
import type { Actions } from "./card";

// Outside VS Code the page itself shows files and diffs: a panel over the conversation
// (Esc or × closes it). A file is read through parley (_parley/file: inside the session's
// workspace only); a diff is shown unified, hunk by hunk, with the lines' numbers.

export class Viewer {
  private el: HTMLElement | null = null;

  constructor(private parley: Parley, private session: () => Session | undefined) {}

  actions(): Pick<Actions, "openFile" | "openDiff"> {
    return { openFile: (path, line) => void this.openFile(path, line), openDiff: (path, oldText, newText) => this.openDiff(path, oldText, newText) };
  }

  async openFile(path: string, line?: number) {
    const s = this.session();
    if (!s) return;
    const body = h("div", { class: "viewer-body muted", text: "reading…" });
    this.show(path, "file", body);
    try {
      const f = await this.parley.file(s, path);
      body.className = "viewer-body";
      if (f.text === null) {
        body.replaceChildren(h("div", { class: "muted", text: f.note ?? "nothing to show" }));
        return;
      }
      const rows = f.text.replace(/\n$/, "").split("\n").map((t, i) =>
        h("div", { class: `fl${line === i + 1 ? " at" : ""}`, "data-line": String(i + 1) }, h("span", { class: "no", text: String(i + 1) }), h("span", { class: "t", text: t })),
      );
      body.replaceChildren(h("div", { class: "file-lines" }, ...rows));
      if (line) rows[line - 1]?.scrollIntoView({ block: "center" });
    } catch (e) {
      body.replaceChildren(h("div", { class: "notice error", role: "alert", text: String((e as Error)?.message ?? e) }));
    }
  }

  openDiff(path: string, oldText: string | null, newText: string) {
    const body = h("div", { class: "viewer-body" });
    const groups: DiffLine[][] = [];
    let cur: DiffLine[] = [];
    for (const l of hunks(diffLines(oldText ?? "", newText))) {
      if (l) cur.push(l);
      else if (cur.length) groups.push(cur), (cur = []);
    }
    if (cur.length) groups.push(cur);
    if (!groups.length) body.append(h("div", { class: "muted", text: "the texts are the same" }));
    for (const g of groups) body.append(hunkView(g));
    this.show(path, oldText === null ? "new file" : "diff", body);
  }

  private show(path: string, what: string, body: HTMLElement) {
    this.close();
    const close = h("button", { class: "viewer-close", title: "Close (Esc)", "aria-label": "close", onclick: () => this.close() }, "×");
    const el = h(
      "div",
      { class: "viewer", role: "dialog", "aria-label": `${what}: ${path}`, tabindex: "-1" },
      h("div", { class: "viewer-head" }, h("span", { class: "viewer-what", text: what }), h("span", { class: "viewer-path", title: path, text: path }), close),
      body,
    );
    el.addEventListener("keydown", (e) => {
      if (e.key === "Escape") e.stopPropagation(), this.close();
    });
    document.body.append(el);
    this.el = el;
    el.focus();
  }

  close() {
    this.el?.remove();
    this.el = null;
  }
}

// hunkView is one hunk: its @@ header (where it is in each text), then its lines, each
// with its number in the old and the new text.
function hunkView(lines: DiffLine[]): HTMLElement {
  const oldStart = lines.find((l) => l.oldNo !== undefined)?.oldNo ?? 0;
  const newStart = lines.find((l) => l.newNo !== undefined)?.newNo ?? 0;
  const oldCount = lines.filter((l) => l.op !== "+").length;
  const newCount = lines.filter((l) => l.op !== "-").length;
  const el = h("div", { class: "hunk" }, h("div", { class: "hunk-head", text: `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@` }));
  for (const l of lines) {
    el.append(
      h(
        "div",
        { class: `dl ${l.op === "+" ? "add" : l.op === "-" ? "del" : "ctx"}` },
        h("span", { class: "no", text: l.oldNo !== undefined && l.op !== "+" ? String(l.oldNo) : "" }),
        h("span", { class: "no", text: l.newNo !== undefined && l.op !== "-" ? String(l.newNo) : "" }),
        h("span", { class: "op", text: l.op }),
        h("span", { class: "t", text: l.text }),
      ),
    );
  }
  return el;
}
