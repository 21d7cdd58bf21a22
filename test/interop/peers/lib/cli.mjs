// Command-line helpers shared by the peers: flag parsing, command splitting,
// and writing a summary file so that a reader never sees half of it.

import { renameSync, writeFileSync } from "node:fs";

// parseFlags reads "--name value", "--name=value" and bare boolean flags.
// spec maps a flag name to "string", "list" (repeatable), "bool" or
// "optional" (a value only when the next word is not another flag).
export function parseFlags(argv, spec) {
  const flags = {};
  for (const [name, kind] of Object.entries(spec)) {
    if (kind === "list") flags[name] = [];
  }
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (!word.startsWith("--")) throw new Error(`unexpected argument ${JSON.stringify(word)}`);
    let name = word.slice(2);
    let inline;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      inline = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    const kind = spec[name];
    if (!kind) throw new Error(`unknown flag --${name}`);
    if (kind === "bool") {
      flags[name] = inline === undefined ? true : inline !== "false";
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      if (kind === "optional" && (next === undefined || next.startsWith("--"))) {
        flags[name] = true;
        continue;
      }
      if (next === undefined) throw new Error(`flag --${name} needs a value`);
      value = next;
      i++;
    }
    if (kind === "list") flags[name].push(value);
    else flags[name] = value;
  }
  return flags;
}

// splitCommand splits a command line into words the way a POSIX shell would
// for plain words, single quotes, double quotes and backslashes. There is no
// expansion of any kind: the agent command is run without a shell.
export function splitCommand(line) {
  const words = [];
  let word = "";
  let inWord = false;
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = "";
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = "";
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in ${JSON.stringify(line)}`);
  if (inWord) words.push(word);
  return words;
}

// writeJSONAtomically writes value as indented JSON through a temporary file
// and a rename, so a test polling or reading the file never sees a torn write.
export function writeJSONAtomically(path, value) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + "\n");
  renameSync(tmp, path);
}
