// VS Code's language-model messages, parts and options in the wire protocol's shapes.

import * as vscode from 'vscode';
import type { LogSink } from './backend';
import { isApproval } from './agentAction';
import { AGENT_ACTION_TOOL, type ToolDefinition, type WireMessage, type WirePart } from './wire';

const decoder = new TextDecoder();

/** Data parts VS Code and its consumers use for bookkeeping, never meant for the model. */
const BOOKKEEPING_MIME = new Set(['cache_control', 'stateful_marker']);

function isTextMime(mime: string): boolean {
  return mime.startsWith('text/') || mime === 'application/json' || mime.endsWith('+json');
}

interface DataLike {
  mimeType: string;
  data: Uint8Array;
}

function isData(part: unknown): part is DataLike {
  const p = part as Partial<DataLike> | null;
  return typeof p === 'object' && p !== null && typeof p.mimeType === 'string' && p.data instanceof Uint8Array;
}

/** Whether part is one of VS Code's thinking parts (display only: never sent back). */
function isThinking(part: unknown): boolean {
  const ctor = (vscode as unknown as { LanguageModelThinkingPart?: Function }).LanguageModelThinkingPart;
  return typeof ctor === 'function' && part instanceof ctor;
}

/** One part of a message, or undefined for a part the protocol cannot carry (logged). */
function toWirePart(part: unknown, log: LogSink): WirePart | undefined {
  if (part instanceof vscode.LanguageModelTextPart) return { type: 'text', value: part.value };
  if (part instanceof vscode.LanguageModelToolCallPart) {
    return { type: 'tool_call', toolCallId: part.callId, toolName: part.name, parameters: part.input ?? {} };
  }
  if (part instanceof vscode.LanguageModelToolResultPart) {
    return { type: 'tool_result', toolCallId: part.callId, result: toolResultContent(part.content) };
  }
  if (isThinking(part)) return undefined;
  if (isData(part)) {
    if (BOOKKEEPING_MIME.has(part.mimeType)) return undefined;
    if (isTextMime(part.mimeType)) return { type: 'text', value: decoder.decode(part.data) };
    log.appendLine(`[client] left out a ${part.mimeType} part: parley's agents take text only`);
    return undefined;
  }
  log.appendLine(`[client] left out a message part parley cannot carry: ${describe(part)}`);
  return undefined;
}

function describe(part: unknown): string {
  if (part === null || typeof part !== 'object') return typeof part;
  return part.constructor?.name ?? 'object';
}

/**
 * A tool result's content as the protocol carries it: a list of {value} objects, the
 * shape JSON.stringify gives VS Code's text parts. Data parts become text where they are
 * text, else a note saying what was left out.
 */
export function toolResultContent(content: readonly unknown[]): Array<{ value: unknown }> {
  return content.map((c) => {
    if (c instanceof vscode.LanguageModelTextPart) return { value: c.value };
    if (c instanceof vscode.LanguageModelPromptTsxPart) return { value: c.value };
    if (isData(c)) {
      return { value: isTextMime(c.mimeType) ? decoder.decode(c.data) : `[${c.mimeType}, ${c.data.byteLength} bytes, not shown]` };
    }
    const v = (c as { value?: unknown } | null)?.value;
    return { value: v !== undefined ? v : c };
  });
}

/**
 * The conversation in the wire protocol's shape. VS Code's roles other than assistant are
 * "user".
 *
 * A result of the agent-action tool that is not its approval (VS Code answers a skipped
 * confirmation with words of its own, without running the tool) goes to a backend that
 * refuses such results (`refusesUnapproved`: it answers the agent reject_once and the turn
 * goes on) as it is. To an older backend, which took any result as the approval, it is not
 * sent at all: the backend then sees a call that was not answered, a refusal.
 */
export function toWireMessages(messages: readonly vscode.LanguageModelChatRequestMessage[], log: LogSink, opts: { refusesUnapproved?: boolean } = {}): WireMessage[] {
  const actionCalls = new Set<string>();
  const out: WireMessage[] = [];
  for (const m of messages) {
    const content: WirePart[] = [];
    let dropped = false;
    for (const p of m.content) {
      const part = toWirePart(p, log);
      if (!part) continue;
      if (part.type === 'tool_call' && part.toolName === AGENT_ACTION_TOOL) actionCalls.add(part.toolCallId);
      if (part.type === 'tool_result' && actionCalls.has(part.toolCallId) && !isApproval(part.result) && !opts.refusesUnapproved) {
        log.appendLine(`[client] the agent action ${part.toolCallId} was not approved; left out, as this parley would take any result as the approval (update parley)`);
        dropped = true;
        continue;
      }
      content.push(part);
    }
    if (dropped && content.length === 0) continue;
    out.push({ role: m.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user', content });
  }
  return out;
}

export function toWireTools(tools: readonly vscode.LanguageModelChatTool[] | undefined): ToolDefinition[] {
  return (tools ?? []).map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema ?? {} }));
}

export function toWireToolMode(mode: vscode.LanguageModelChatToolMode | undefined): 'auto' | 'required' {
  return mode === vscode.LanguageModelChatToolMode.Required ? 'required' : 'auto';
}

/** The text whose tokens provideTokenCount counts: a string, or a message's parts as they go on the wire. */
export function tokenCountText(text: string | vscode.LanguageModelChatRequestMessage, log: LogSink): string {
  if (typeof text === 'string') return text;
  return toWireMessages([text], log)[0].content
    .map((p) => (p.type === 'text' ? p.value : JSON.stringify(p)))
    .join('');
}

/** The workspace folders as the agent's cwd and further roots (local folders only). */
export function workspaceRoots(): { cwd?: string; additionalDirectories?: string[] } {
  const dirs = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  if (dirs.length === 0) return {};
  return dirs.length === 1 ? { cwd: dirs[0] } : { cwd: dirs[0], additionalDirectories: dirs.slice(1) };
}
