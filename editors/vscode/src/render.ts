// How @parley shows a turn in VS Code's chat: the agent's text as Markdown, its thoughts,
// and each of its tool calls (the backend's tool_invocation parts, VS Code's own state
// model). With the proposed chatParticipantAdditions API a tool call is a
// ChatToolInvocationPart updated in place; without it, a progress line while it runs and
// one Markdown line when it ends.

import * as vscode from 'vscode';
import { codeBlock } from './agentAction';
import type { LogSink } from './backend';
import type { ToolInvocation } from './wire';
import { visible, VisibleStream } from './visible';

/** The proposed API's tool-invocation part, as far as it is used here. */
interface ToolInvocationPartLike {
  invocationMessage?: string | vscode.MarkdownString;
  pastTenseMessage?: string | vscode.MarkdownString;
  isComplete?: boolean;
  isError?: boolean;
  isConfirmed?: boolean;
  toolSpecificData?: unknown;
  subAgentInvocationId?: string;
  presentation?: 'hidden' | 'hiddenAfterComplete';
  enablePartialUpdate?: boolean;
}

type ToolInvocationPartCtor = new (toolName: string, toolCallId: string, errorMessage?: string) => ToolInvocationPartLike;

/** The proposed stream methods used here. */
interface ProposedStream {
  thinkingProgress?(part: { text: string; id?: string }): unknown;
  push(part: unknown): unknown;
}

function proposedPartCtor(): ToolInvocationPartCtor | undefined {
  const ctor = (vscode as unknown as { ChatToolInvocationPart?: ToolInvocationPartCtor }).ChatToolInvocationPart;
  return typeof ctor === 'function' ? ctor : undefined;
}

const encoder = new TextEncoder();

/** A Markdown text that shows s literally. */
function literal(s: string): vscode.MarkdownString {
  return new vscode.MarkdownString().appendText(visible(s));
}

function isDone(inv: ToolInvocation): boolean {
  return inv.state === 'completed' || inv.state === 'cancelled';
}

/** The words shown while the call runs, and once it has ended. */
export function toolMessages(inv: ToolInvocation): { running: string; done: string } {
  const name = inv.title || inv.toolName || inv.kind || 'tool';
  const running = inv.invocationMessage || name;
  let done = inv.pastTenseMessage || name;
  if (inv.state === 'cancelled') done = `Cancelled: ${inv.title || running}`;
  if (inv.isError) done = `Failed: ${inv.title || running}${inv.errorMessage ? ` (${inv.errorMessage})` : ''}`;
  return { running, done };
}

/**
 * Renders one turn into a chat response stream. One renderer per turn. Each proposed
 * method is tried on its own: VS Code checks some (thinkingProgress) and not others
 * (pushing a ChatToolInvocationPart), and one refused must not switch off the other.
 */
export class TurnRenderer {
  private toolParts: boolean;
  private thinkingParts: boolean;
  private thinkingShown = false;
  private readonly fallbackShown = new Map<string, string>(); // toolCallId → last state shown
  // The agent's text and thoughts made visible (visible.ts), chunk after chunk.
  private readonly textSafe = new VisibleStream();
  private readonly thoughtSafe = new VisibleStream();

  constructor(
    private readonly stream: vscode.ChatResponseStream,
    private readonly log: LogSink,
    useProposed: boolean,
  ) {
    this.toolParts = useProposed && proposedPartCtor() !== undefined;
    this.thinkingParts = useProposed && typeof (stream as unknown as ProposedStream).thinkingProgress === 'function';
  }

  /** Whether tool calls are shown as ChatToolInvocationPart (for tests and the log). */
  get usesToolInvocationParts(): boolean {
    return this.toolParts;
  }

  text(value: string): void {
    this.thinkingShown = false;
    this.stream.markdown(this.textSafe.append(value));
  }

  thinking(value: string): void {
    const s = this.stream as unknown as ProposedStream;
    if (this.thinkingParts) {
      if (this.tryProposed('thinkingProgress', () => s.thinkingProgress!({ text: this.thoughtSafe.append(value) }))) return;
      this.thinkingParts = false;
    }
    if (!this.thinkingShown) this.stream.progress('Thinking…');
    this.thinkingShown = true;
  }

  tool(inv: ToolInvocation): void {
    if (inv.presentation === 'hidden') return;
    if (this.toolParts && inv.presentation !== 'hiddenAfterComplete') {
      if (this.tryProposed('ChatToolInvocationPart', () => this.pushPart(inv))) return;
      this.toolParts = false;
    }
    this.fallback(inv);
  }

  /** An agent action the user declined. */
  declined(title: string): void {
    this.stream.markdown(new vscode.MarkdownString('\n\n**Declined:** the agent was not allowed to ').appendText(visible(title)).appendMarkdown('.\n'));
  }

  /** Runs f, a use of the proposed API; false (and a note in the log) when VS Code refuses it. */
  private tryProposed(what: string, f: () => unknown): boolean {
    try {
      f();
      return true;
    } catch (err) {
      this.log.appendLine(`[client] VS Code refuses the proposed ${what} (${err instanceof Error ? err.message : String(err)}); shown as progress and Markdown instead`);
      return false;
    }
  }

  private pushPart(inv: ToolInvocation): void {
    const Ctor = proposedPartCtor()!;
    const { running, done } = toolMessages(inv);
    const part = new Ctor(inv.toolName || inv.kind || 'tool', inv.toolCallId);
    part.enablePartialUpdate = true; // later pushes with this id update the same entry
    part.invocationMessage = literal(running);
    part.pastTenseMessage = literal(done);
    part.isComplete = isDone(inv);
    part.isError = !!inv.isError;
    if (inv.parentId) part.subAgentInvocationId = inv.parentId;
    const data = toolSpecificData(inv);
    if (data) part.toolSpecificData = data;
    (this.stream as unknown as ProposedStream).push(part);
  }

  private fallback(inv: ToolInvocation): void {
    const last = this.fallbackShown.get(inv.toolCallId);
    const { running, done } = toolMessages(inv);
    if (!isDone(inv)) {
      if (last !== 'running') this.stream.progress(visible(running));
      this.fallbackShown.set(inv.toolCallId, 'running');
      return;
    }
    if (last === 'done') return;
    this.fallbackShown.set(inv.toolCallId, 'done');
    if (inv.presentation === 'hiddenAfterComplete') return;
    const indent = inv.parentId ? '    ' : '';
    const mark = inv.isError ? '✗' : inv.state === 'cancelled' ? '⊘' : '✓';
    const md = new vscode.MarkdownString(`\n\n${indent}${mark} `).appendText(visible(done)).appendMarkdown('\n');
    if (inv.terminalCommand) md.appendMarkdown('\n' + codeBlock(visible(inv.terminalCommand), 'sh'));
    this.stream.markdown(md);
  }
}

/** The proposed part's toolSpecificData: a terminal command line, or the call's input and output. */
function toolSpecificData(inv: ToolInvocation): unknown {
  if (inv.terminalCommand) {
    const data: Record<string, unknown> = { commandLine: { original: visible(inv.terminalCommand) }, language: 'sh' };
    if (isDone(inv) && inv.content) data.output = { text: visible(inv.content) };
    return data;
  }
  if (isDone(inv) && (inv.isError || inv.content)) {
    const text = inv.isError ? inv.errorMessage || inv.content || 'failed' : inv.content!;
    return { input: visible(inv.title || inv.toolName || ''), output: [{ mimeType: 'text/plain', data: encoder.encode(visible(text)) }] };
  }
  return undefined;
}
