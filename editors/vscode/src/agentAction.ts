// The parley-agent-action tool: how an agent's permission request reaches the user.
// The backend turns the agent's session/request_permission into a call of this tool;
// VS Code shows prepareInvocation's confirmation; invoke runs only when the user allowed
// it, and its result tells the backend to answer the agent with allow_once.

import * as vscode from 'vscode';
import { visible } from './visible';
import type { AgentActionInput } from './wire';

/** The command the agent wants to run, when its raw input names one. */
export function commandOf(raw: unknown): string | undefined {
  const r = raw as Record<string, unknown> | null;
  if (!r || typeof r !== 'object') return undefined;
  for (const key of ['command', 'cmd']) {
    const v = r[key];
    if (typeof v === 'string' && v.trim()) return v;
    if (Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string')) return v.map(shellQuote).join(' ');
  }
  return undefined;
}

/** A word as a POSIX shell would read it back, so that what is shown is what runs. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A fenced code block that shows code exactly, whatever it holds: the fence is longer
 * than any run of backticks inside, so the agent's text cannot close it early.
 */
export function codeBlock(code: string, language: string): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${code}\n${fence}\n`;
}

/** The files the agent's raw input names. */
export function filesOf(raw: unknown): string[] {
  const r = raw as Record<string, unknown> | null;
  if (!r || typeof r !== 'object') return [];
  const files: string[] = [];
  for (const key of ['path', 'file_path', 'filePath', 'abs_path', 'file', 'notebook_path']) {
    if (typeof r[key] === 'string') files.push(r[key] as string);
  }
  for (const key of ['paths', 'files']) {
    const v = r[key];
    if (Array.isArray(v)) files.push(...v.filter((p): p is string => typeof p === 'string'));
  }
  const locations = (r as { locations?: unknown }).locations;
  if (Array.isArray(locations)) {
    for (const l of locations) if (typeof (l as { path?: unknown })?.path === 'string') files.push((l as { path: string }).path);
  }
  return [...new Set(files)];
}

/**
 * What the agent asks to do, in words: its title, else its kind, else a generic phrase.
 * Like everything the confirmation shows of the agent's request, made visible
 * (visible.ts): a U+202E or a tag character in it is shown by its code point.
 */
export function actionTitle(input: AgentActionInput): string {
  return visible(input.title?.trim() || input.kind?.trim() || 'perform an action');
}

/** The confirmation's Markdown: the request's title, kind, command or files, and description. */
export function confirmationMarkdown(input: AgentActionInput): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendMarkdown('Allow the agent to **');
  md.appendText(actionTitle(input));
  md.appendMarkdown('**?');
  if (input.kind) {
    md.appendMarkdown('\n\nKind: ');
    md.appendText(visible(input.kind));
  }
  const command = commandOf(input.raw_input);
  if (command) md.appendMarkdown('\n\nCommand:\n\n' + codeBlock(visible(command), 'sh'));
  const files = filesOf(input.raw_input);
  if (files.length === 1) md.appendMarkdown('\n\nFile: ').appendText(visible(files[0]));
  if (files.length > 1) {
    md.appendMarkdown('\n\nFiles:\n');
    for (const f of files) md.appendMarkdown('\n- ').appendText(visible(f.replace(/[\r\n]+/g, ' ')));
  }
  const description = (input.raw_input as { description?: unknown } | null)?.description;
  if (typeof description === 'string' && description.trim()) {
    md.appendMarkdown('\n\n');
    md.appendText(visible(description));
  }
  return md;
}

/** The result invoke returns: the one answer the backend takes as the user's approval. */
export const APPROVED = 'Approved';

/** Whether a tool result (as the wire carries it) is this tool's approval. */
export function isApproval(result: unknown): boolean {
  return Array.isArray(result) && result.length === 1 && (result[0] as { value?: unknown } | null)?.value === APPROVED;
}

/** The confirmation as plain text, for a dialog (no Markdown there). */
export function confirmationText(input: AgentActionInput): string {
  const lines: string[] = [];
  if (input.kind) lines.push(`Kind: ${input.kind}`);
  const command = commandOf(input.raw_input);
  if (command) lines.push(`Command: ${command}`);
  const files = filesOf(input.raw_input);
  if (files.length > 0) lines.push(`${files.length === 1 ? 'File' : 'Files'}: ${files.join(', ')}`);
  const description = (input.raw_input as { description?: unknown } | null)?.description;
  if (typeof description === 'string' && description.trim()) lines.push(description.trim());
  return visible(lines.join('\n'));
}

/** The button of confirmInDialog that allows the action. */
export const ALLOW_ONCE = 'Allow Once';

/**
 * Asks about an agent action in a modal dialog: for editors without VS Code's tool API,
 * where the confirmation cannot appear in the chat. Resolves true only when the user
 * chose to allow it; closing the dialog is a no.
 */
export async function confirmInDialog(input: AgentActionInput): Promise<boolean> {
  const choice = await vscode.window.showWarningMessage(`Allow the agent to ${actionTitle(input)}?`, { modal: true, detail: confirmationText(input) }, ALLOW_ONCE);
  return choice === ALLOW_ONCE;
}

export class AgentActionTool implements vscode.LanguageModelTool<AgentActionInput> {
  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<AgentActionInput>): vscode.PreparedToolInvocation {
    const input = options.input ?? {};
    return {
      invocationMessage: `Agent action: ${actionTitle(input)}`,
      confirmationMessages: { title: 'Agent Action', message: confirmationMarkdown(input) },
    };
  }

  invoke(): vscode.LanguageModelToolResult {
    // Reached only after the user allowed it in the confirmation.
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(APPROVED)]);
  }
}
