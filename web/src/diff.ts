// Line diff (Myers' O(ND) algorithm) of a file edit, for a tool call's card and a
// permission question about an edit. Past a budget of edits it gives up and shows the
// whole old text removed and the new one added: a diff must never freeze the page.

export type DiffLine = { op: " " | "-" | "+"; text: string; oldNo?: number; newNo?: number };

const maxEdits = 2000;

export function diffLines(oldText: string, newText: string): DiffLine[] {
  const a = lines(oldText);
  const b = lines(newText);
  const n = a.length, m = b.length, max = n + m;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= Math.min(max, maxEdits); d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[max + k - 1] < v[max + k + 1]) ? v[max + k + 1] : v[max + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) x++, y++;
      v[max + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    if (found) break;
  }
  if (!found) {
    return [...a.map((t, i) => ({ op: "-" as const, text: t, oldNo: i + 1 })), ...b.map((t, i) => ({ op: "+" as const, text: t, newNo: i + 1 }))];
  }
  // Walk the trace back from the end.
  const out: DiffLine[] = [];
  let x = n, y = m;
  for (let d = trace.length - 1; d >= 0 && (x > 0 || y > 0); d--) {
    const vv = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && vv[max + k - 1] < vv[max + k + 1]) ? k + 1 : k - 1;
    const prevX = vv[max + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) out.push({ op: " ", text: a[--x], oldNo: x + 1, newNo: y-- });
    if (d > 0) {
      if (x === prevX) out.push({ op: "+", text: b[--y], newNo: y + 1 });
      else out.push({ op: "-", text: a[--x], oldNo: x + 1 });
    }
  }
  return out.reverse();
}

// lines splits text into its lines; the newline that ends the last one starts no other.
function lines(text: string): string[] {
  if (text === "") return [];
  const out = text.split("\n");
  if (out[out.length - 1] === "") out.pop();
  return out;
}

// hunks keeps the changed lines with `context` lines around them.
export function hunks(lines: DiffLine[], context = 3): (DiffLine | null)[] {
  const keep = new Uint8Array(lines.length);
  lines.forEach((l, i) => {
    if (l.op !== " ") for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep[j] = 1;
  });
  const out: (DiffLine | null)[] = [];
  let gap = false;
  lines.forEach((l, i) => {
    if (keep[i]) out.push(l), (gap = false);
    else if (!gap) out.push(null), (gap = true);
  });
  return out;
}
