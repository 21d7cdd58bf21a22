// visible makes text from an agent safe to show: every character that acts instead of
// showing, or that shows nothing, is shown by its code point ("<U+202E>"). It is the
// rule of parley's terminal output (toolui.SafeText in internal/toolui/safetext.go),
// ported: the always-invisible characters come from a table generated from the Go one
// (visible-table.ts); the characters judged by their neighbours (joiners, variation
// selectors, a flag's tags) by the same rules, with the browser's Unicode properties for
// letters, marks and symbols. Both test suites read internal/toolui/testdata/visible.json.
// The VS Code extension holds a copy of this file (editors/vscode/src/visible.ts); a Go
// test keeps the two the same.
import { invisibleRanges, selectorRanges } from "./visible-table";

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const KEYCAP = 0x20e3;

function inRanges(ranges: readonly number[], cp: number): boolean {
  let lo = 0;
  let hi = ranges.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cp > ranges[2 * mid + 1]) lo = mid + 1;
    else if (cp < ranges[2 * mid]) hi = mid;
    else return true;
  }
  return false;
}

/** invisible reports whether cp is shown by its code point wherever it is (toolui.Invisible). */
export function invisible(cp: number): boolean {
  if (cp < 0x80) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return true; // a lone surrogate: JavaScript strings can hold one
  return inRanges(invisibleRanges, cp);
}

function isSelector(cp: number): boolean {
  return inRanges(selectorRanges, cp);
}

const letterOrMark = /^[\p{L}\p{M}]$/u;
const nonJoiningScript = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;
const symbol = /^\p{S}$/u;
const graphic = /^[\p{L}\p{M}\p{N}\p{S}\p{P}]$/u;

function joiningLetter(ch: string): boolean {
  return letterOrMark.test(ch) && !nonJoiningScript.test(ch);
}

// A variation selector after prev (shown, not ASCII) selects a form of it.
function selectable(prev: number): boolean {
  return !invisible(prev) && !isSelector(prev) && graphic.test(String.fromCodePoint(prev));
}

// A joiner after prev (shown) can join it to what follows.
function joinsAfter(prev: number): boolean {
  if (prev < 0x80) return false;
  const ch = String.fromCodePoint(prev);
  return joiningLetter(ch) || symbol.test(ch) || isSelector(prev);
}

// A joiner before next can join it to what precedes.
function joinsBefore(next: number | undefined): boolean {
  if (next === undefined || next < 0x80 || invisible(next)) return false;
  const ch = String.fromCodePoint(next);
  return joiningLetter(ch) || symbol.test(ch);
}

// flagTags is how many UTF-16 units of s from i are the tag sequence of a subdivision's
// flag (two to six tag letters and digits, then the cancel tag); 0 when there is none.
function flagTags(s: string, i: number): number {
  let n = 0;
  for (let count = 0; count <= 6; count++) {
    const cp = s.codePointAt(i + n);
    if (cp === CANCEL_TAG && count >= 2) return n + 2;
    if (cp === undefined || !((cp >= 0xe0061 && cp <= 0xe007a) || (cp >= 0xe0030 && cp <= 0xe0039))) return 0;
    n += 2;
  }
  return 0;
}

function hex(cp: number): string {
  return "<U+" + cp.toString(16).toUpperCase().padStart(4, "0") + ">";
}

// Plain text needs no change: printable ASCII, newlines and tabs.
const plain = /^[\x20-\x7e\n\t]*$/;

/**
 * VisibleStream is visible for text that comes in pieces (a reply, chunk by chunk): a
 * piece's first character is judged by the end of the piece before, as toolui.SafeStream
 * does. A high surrogate ending a piece waits for the piece with its low half.
 */
export class VisibleStream {
  private prev = 0; // the last character shown as itself; 0 when none
  private held = "";

  /** append returns piece made safe to show. */
  append(piece: string): string {
    return this.run(this.held + piece, true);
  }

  /** reset forgets the text before. */
  reset() {
    this.prev = 0;
    this.held = "";
  }

  run(s: string, open: boolean): string {
    this.held = "";
    if (plain.test(s)) {
      if (s) this.prev = s.charCodeAt(s.length - 1);
      return s;
    }
    let out = "";
    for (let i = 0; i < s.length; ) {
      const c = s.charCodeAt(i);
      if (c === 0x0d && s.charCodeAt(i + 1) === 0x0a) {
        i++;
        continue;
      }
      if (c === 0x0a || c === 0x09 || (c >= 0x20 && c < 0x7f)) {
        out += s[i];
        this.prev = c;
        i++;
        continue;
      }
      if (c < 0x20 || c === 0x7f) {
        out += String.fromCharCode(c === 0x7f ? 0x2421 : 0x2400 + c);
        this.prev = 0;
        i++;
        continue;
      }
      if (open && i === s.length - 1 && c >= 0xd800 && c <= 0xdbff) {
        this.held = s[i];
        break;
      }
      const cp = s.codePointAt(i)!;
      let n = cp > 0xffff ? 2 : 1;
      let hide: boolean;
      const atEnd = i + n === s.length;
      const next = s.codePointAt(i + n);
      if (cp === ZWJ || cp === ZWNJ) {
        hide = atEnd && open ? !joinsAfter(this.prev) : !joinsAfter(this.prev) || !joinsBefore(next);
      } else if (isSelector(cp)) {
        if (this.prev >= 0x80 && selectable(this.prev)) hide = false;
        else if (cp === 0xfe0f && ((this.prev >= 0x30 && this.prev <= 0x39) || this.prev === 0x23 || this.prev === 0x2a)) hide = !(next === KEYCAP || (atEnd && open));
        else hide = true;
      } else if (cp === BLACK_FLAG) {
        n += flagTags(s, i + n);
        hide = false;
      } else {
        hide = invisible(cp);
      }
      if (hide) {
        out += hex(cp);
        this.prev = 0;
      } else {
        out += s.slice(i, i + n);
        this.prev = cp;
      }
      i += n;
    }
    return out;
  }
}

/** visible returns s made safe to show (toolui.SafeText). */
export function visible(s: string): string {
  if (plain.test(s)) return s;
  return new VisibleStream().run(s, false);
}
