// keepView notes what the user did inside a card that a redraw would undo (the sections
// opened, the text selected) so that restore can put it back on the redrawn card: a card
// is redrawn whole on every update, and a tool's output streams in many updates.
//
// A section is known by its summary's text (and its rank among those with the same
// one); a selection by the path of child indexes from the card to each end. A redrawn
// card has the same shape where nothing changed, and text that streams in is appended to
// its node, so the offsets stay where they were; an end that no longer exists drops the
// selection rather than select something else.
export function keepView(root: HTMLElement): { restore(): void } {
  const open = new Set<string>();
  for (const [key, d] of sections(root)) if (d.open) open.add(key);
  const sel = root.ownerDocument.getSelection();
  let ends: { anchor: number[]; anchorOffset: number; focus: number[]; focusOffset: number } | null = null;
  if (sel && sel.rangeCount > 0 && !sel.isCollapsed && sel.anchorNode && sel.focusNode && root.contains(sel.anchorNode) && root.contains(sel.focusNode)) {
    ends = { anchor: pathTo(root, sel.anchorNode), anchorOffset: sel.anchorOffset, focus: pathTo(root, sel.focusNode), focusOffset: sel.focusOffset };
  }
  return {
    restore() {
      for (const [key, d] of sections(root)) if (open.has(key)) d.open = true;
      if (!ends || !sel) return;
      const anchor = nodeAt(root, ends.anchor);
      const focus = nodeAt(root, ends.focus);
      if (!anchor || !focus || ends.anchorOffset > lengthOf(anchor) || ends.focusOffset > lengthOf(focus)) return;
      sel.setBaseAndExtent(anchor, ends.anchorOffset, focus, ends.focusOffset);
    },
  };
}

function sections(root: HTMLElement): [string, HTMLDetailsElement][] {
  const seen = new Map<string, number>();
  const out: [string, HTMLDetailsElement][] = [];
  for (const d of root.querySelectorAll("details")) {
    const summary = d.querySelector(":scope > summary")?.textContent ?? "";
    const n = seen.get(summary) ?? 0;
    seen.set(summary, n + 1);
    out.push([`${summary}#${n}`, d]);
  }
  return out;
}

function pathTo(root: Node, node: Node): number[] {
  const path: number[] = [];
  for (let n: Node = node; n !== root && n.parentNode; n = n.parentNode) {
    path.unshift(Array.prototype.indexOf.call(n.parentNode.childNodes, n));
  }
  return path;
}

function nodeAt(root: Node, path: number[]): Node | null {
  let n: Node | null = root;
  for (const i of path) n = n?.childNodes[i] ?? null;
  return n;
}

function lengthOf(n: Node): number {
  return n.nodeType === Node.TEXT_NODE ? (n as Text).length : n.childNodes.length;
}
