import { h } from "../dom";
import type { ContentBlock } from "@agentclientprotocol/sdk";

// What a command printed is not Markdown: `ls -la` would run into one paragraph, and go's
// `# ./...` line would become a heading. A tool call that runs something (kind execute)
// shows its text content as it came, monospaced, its lines kept, as text (never HTML).

// isCommandOutput says whether a tool call's text content is what a command printed.
export function isCommandOutput(kind: string | null | undefined, block: ContentBlock): block is ContentBlock & { type: "text" } {
  return kind === "execute" && block.type === "text";
}

// commandOutputView shows command output preformatted. Agents that send output as one
// fenced code block (```console … ```) get the fence taken off: it is how they say
// "preformatted" in Markdown.
export function commandOutputView(text: string): HTMLElement {
  return h("pre", { class: "tool-output", text: unfence(text) });
}

function unfence(text: string): string {
  const m = /^\s*(`{3,}|~{3,})[^\n`]*\n([\s\S]*?)\n?\1\s*$/.exec(text);
  return m ? m[2] : text;
}
