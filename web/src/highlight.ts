// A small highlighter for code blocks: strings, comments, numbers and the keywords of the
// languages agents write most. It tokenizes; it never builds HTML from the code (the
// caller appends text nodes), so nothing in the code can become markup.

const keywords = new Set(
  (
    "break case catch class const continue default defer do else enum export extends false finally for from func " +
    "function go if import in interface let match mod new nil None null package pub return self static struct switch " +
    "this throw True true try type typeof use var void while with yield async await def elif except fn impl lambda " +
    "pass raise range select fi then done esac local echo"
  ).split(" "),
);

export interface Token {
  text: string;
  cls?: "kw" | "str" | "com" | "num";
}

const lineComment: Record<string, string> = { py: "#", python: "#", sh: "#", bash: "#", shell: "#", yaml: "#", yml: "#", toml: "#", rb: "#", ruby: "#", sql: "--" };

export function tokenize(code: string, lang: string): Token[] {
  const out: Token[] = [];
  const lc = lineComment[lang.toLowerCase()] ?? "//";
  const blockComments = lc === "//";
  let i = 0;
  let plain = "";
  const flush = () => {
    if (plain) out.push({ text: plain }), (plain = "");
  };
  // Long inputs are shown plain: highlighting is a nicety, never a cost.
  if (code.length > 200_000) return [{ text: code }];
  while (i < code.length) {
    const c = code[i];
    if (code.startsWith(lc, i) || (blockComments && code.startsWith("/*", i))) {
      flush();
      const end = code.startsWith("/*", i) ? code.indexOf("*/", i + 2) : code.indexOf("\n", i);
      const stop = end < 0 ? code.length : code.startsWith("/*", i) ? end + 2 : end;
      out.push({ text: code.slice(i, stop), cls: "com" });
      i = stop;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") {
      flush();
      let j = i + 1;
      while (j < code.length && code[j] !== c && !(c !== "`" && code[j] === "\n")) j += code[j] === "\\" ? 2 : 1;
      j = Math.min(j + 1, code.length);
      out.push({ text: code.slice(i, j), cls: "str" });
      i = j;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      let j = i + 1;
      while (j < code.length && /[\w$]/.test(code[j])) j++;
      const word = code.slice(i, j);
      if (keywords.has(word)) flush(), out.push({ text: word, cls: "kw" });
      else plain += word;
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) && !/[\w$]/.test(code[i - 1] ?? "")) {
      let j = i + 1;
      while (j < code.length && /[0-9a-fA-FxX._]/.test(code[j])) j++;
      flush();
      out.push({ text: code.slice(i, j), cls: "num" });
      i = j;
      continue;
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

export function highlightInto(el: HTMLElement, code: string, lang: string) {
  for (const t of tokenize(code, lang)) {
    if (!t.cls) el.append(t.text);
    else {
      const s = document.createElement("span");
      s.className = "hl-" + t.cls;
      s.textContent = t.text;
      el.append(s);
    }
  }
}
