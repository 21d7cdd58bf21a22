// The chat participant @parley: the agent itself in VS Code's chat, rather than a raw
// model. It speaks ACP to the extension's `parley acp` (acpClient.ts), as the web page
// does: one ACP session per VS Code chat (its id kept in each turn's ChatResult
// metadata), session/prompt for each message, and the session's updates streamed into
// the response (text, thoughts, tool calls, the plan). The agent's permission requests
// are asked in the chat through the agent-action tool (VS Code's own confirmation), its
// questions in VS Code's quick input (questions.ts); after the turn come its usage, the
// files it changed with buttons to see their diff and undo them (review.ts), and the
// sign-in it needs (signin.ts). `/config` shows and changes the agent's settings
// (settings.ts).

import * as vscode from 'vscode';
import type { AcpClient, SessionListener } from './acpClient';
import { ToolCalls } from './acpTools';
import type { ElicitationAnswer, ElicitationParams, PermissionOutcome, PlanEntry, PromptResult, RequestPermissionParams, SessionUpdate, ToolCallFields } from './acpTypes';
import { actionTitle, confirmInDialog, isApproval } from './agentAction';
import { MethodChanges, MethodNotice, MethodSignInRequired, type NoticeNotification, type SignInRequiredNotification, type TurnChangesNotification } from './parleyapi';
import type { LogSink } from './parleyProcess';
import { toolResultContent } from './convert';
import { answerElicitation } from './questions';
import { TurnRenderer } from './render';
import { showChanges } from './review';
import { config } from './settings';
import { showSignIn } from './signin';
import { AGENT_ACTION_TOOL, type AgentActionInput, type ToolDefinition } from './wire';
import { visible } from './visible';

export const PARTICIPANT_ID = 'parley.agent';

/** What a turn leaves in ChatResult.metadata: the agent and the ACP session of the chat. */
export interface TurnMetadata {
  parley: { agent: string; sessionId?: string };
}

/** The context window's use and cost so far (ACP usage_update), and the turn's own tokens. */
export interface Usage {
  usage?: { used: number; size: number; cost?: { amount: number; currency: string } };
  turn?: { inputTokens: number; outputTokens: number };
}

/** What parley said of a turn besides its reply. */
interface TurnInfo {
  usage?: Usage;
  changes: TurnChangesNotification[];
  signIn?: SignInRequiredNotification;
  plan?: PlanEntry[];
  /** The last notice of parley (an answer it refused), for the question asked again. */
  notice?: string;
}

export interface ParticipantContext {
  acp: AcpClient;
  log: LogSink;
  /** The agent to use when the chat's model is not one of parley's (the parley.chat.agent setting). */
  defaultAgent(): string;
  /** The definition of the agent-action tool, as contributed in package.json. */
  agentActionTool(): ToolDefinition;
  /** Whether to try the proposed chat API (the setting parley.chat.toolInvocationParts). */
  useProposedApi(): boolean;
  /** The agent a turn went to (the model to prepare next time). */
  onChosen(agent: string): void;
}

/** The prompt as the agent gets it: the slash command, the text, and the files referenced with #. */
export function promptText(request: Pick<vscode.ChatRequest, 'prompt' | 'command' | 'references'>): string {
  let text = request.command ? `/${request.command} ${request.prompt}` : request.prompt;
  const refs = request.references
    .map((r) => {
      const v = r.value as unknown;
      if (v instanceof vscode.Uri) return v.fsPath;
      const loc = v as { uri?: vscode.Uri; range?: { start: { line: number } } } | undefined;
      if (loc?.uri instanceof vscode.Uri) return `${loc.uri.fsPath}:${(loc.range?.start.line ?? 0) + 1}`;
      return undefined;
    })
    .filter((s): s is string => !!s);
  if (refs.length > 0) text += `\n\nReferenced: ${refs.join(', ')}`;
  return text;
}

/** The markdown text of an earlier response. */
function responseText(turn: vscode.ChatResponseTurn): string {
  return turn.response.map((p) => (p instanceof vscode.ChatResponseMarkdownPart ? p.value.value : '')).join('');
}

/**
 * The chat so far as text, for a session that has to start over (the parley acp that
 * held the chat's session has ended): the agent reads it before the new message.
 */
export function historyText(context: vscode.ChatContext): string {
  const lines: string[] = [];
  for (const turn of context.history) {
    if (turn instanceof vscode.ChatRequestTurn) lines.push(`User: ${promptText({ prompt: turn.prompt, command: turn.command, references: turn.references })}`);
    else if (turn instanceof vscode.ChatResponseTurn) {
      const text = responseText(turn).trim();
      if (text) lines.push(`Assistant: ${text}`);
    }
  }
  if (lines.length === 0) return '';
  return `The conversation so far (from VS Code's chat; the session that held it has ended):\n\n${lines.join('\n\n')}\n\nThe new message:\n\n`;
}

/** The chat's session so far, from the last turn that named one. */
export function lastSession(context: vscode.ChatContext): { agent: string; sessionId: string } | undefined {
  for (let i = context.history.length - 1; i >= 0; i--) {
    const turn = context.history[i];
    if (!(turn instanceof vscode.ChatResponseTurn)) continue;
    const meta = (turn.result.metadata as TurnMetadata | undefined)?.parley;
    if (meta?.sessionId) return { agent: meta.agent, sessionId: meta.sessionId };
  }
  return undefined;
}

export class ParleyParticipant {
  constructor(private readonly ctx: ParticipantContext) {}

  readonly handler: vscode.ChatRequestHandler = (request, context, stream, token) => this.handle(request, context, stream, token);

  async handle(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const agent = request.model?.vendor === 'parley' ? request.model.id : this.ctx.defaultAgent();
    const command = this.command(request, context, stream, agent);
    if (command) return command;
    this.ctx.onChosen(agent);
    const info: TurnInfo = { changes: [] };
    let sessionId: string | undefined;
    const result = (): vscode.ChatResult => ({ metadata: { parley: { agent, sessionId } } satisfies TurnMetadata });
    try {
      const { id, seed } = await this.session(agent, context);
      sessionId = id;
      const renderer = new TurnRenderer(stream, this.ctx.log, this.ctx.useProposedApi());
      const stop = this.ctx.acp.listen(id, this.listener(agent, request, renderer, stream, info, token));
      const abort = new AbortController();
      const cancel = token.onCancellationRequested(() => {
        this.ctx.acp.notify('session/cancel', { sessionId: id });
        abort.abort();
      });
      try {
        const res = await this.ctx.acp.request<PromptResult>('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: seed + promptText(request) }] }, abort.signal);
        if (res?.usage) info.usage = { ...info.usage, turn: { inputTokens: res.usage.inputTokens, outputTokens: res.usage.outputTokens } };
      } finally {
        cancel.dispose();
        stop();
      }
      this.showInfo(stream, id, agent, info);
      return result();
    } catch (err) {
      if (token.isCancellationRequested) return result();
      if (sessionId) this.showInfo(stream, sessionId, agent, info);
      return { ...result(), errorDetails: { message: errorText(err) } };
    }
  }

  /**
   * @parley's own commands (today /config): the result of one, or undefined for a prompt
   * the agent gets. The one place that tells them apart.
   */
  private command(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, agent: string): Promise<vscode.ChatResult> | undefined {
    if (request.command !== 'config') return undefined;
    return this.config(request, context, stream, agent);
  }

  /** The chat's session: the one parley acp holds, else loaded again, else a new one (seeded with the chat so far). */
  private async session(agent: string, context: vscode.ChatContext): Promise<{ id: string; seed: string }> {
    const last = lastSession(context);
    const cwd = await this.ctx.acp.folder();
    if (last && last.agent === agent) {
      if (this.ctx.acp.holds(last.sessionId)) return { id: last.sessionId, seed: '' };
      try {
        await this.ctx.acp.request('session/load', { sessionId: last.sessionId, cwd, mcpServers: [] });
        return { id: last.sessionId, seed: '' };
      } catch (err) {
        this.ctx.log.appendLine(`[client] session ${last.sessionId} cannot be loaded (${errorText(err)}): a new one starts with the chat so far`);
      }
    }
    const res = await this.ctx.acp.request<{ sessionId: string }>('session/new', { cwd, mcpServers: [], _meta: { parley: { agent } } });
    return { id: res.sessionId, seed: historyText(context) };
  }

  private listener(agent: string, request: vscode.ChatRequest, renderer: TurnRenderer, stream: vscode.ChatResponseStream, info: TurnInfo, token: vscode.CancellationToken): SessionListener {
    const tools = new ToolCalls();
    return {
      update: (u) => this.update(u, renderer, tools, info, stream),
      permission: (req, signal) => this.permission(req, request, renderer, tools, token, signal),
      elicitation: (req: ElicitationParams, signal): Promise<ElicitationAnswer> => {
        const refused = info.notice;
        info.notice = undefined;
        return answerElicitation(this.ctx.log, agent, req, stream, refused, signal);
      },
      notification: (method, params) => {
        switch (method) {
          case MethodChanges: {
            const turn = params as TurnChangesNotification;
            info.changes = [...info.changes.filter((t) => t.number !== turn.number), turn];
            return;
          }
          case MethodSignInRequired:
            info.signIn = params as SignInRequiredNotification;
            return;
          case MethodNotice:
            info.notice = String((params as NoticeNotification).text ?? '');
            void vscode.window.showErrorMessage(visible(`parley: ${info.notice}`));
            return;
        }
      },
    };
  }

  private update(u: SessionUpdate, renderer: TurnRenderer, tools: ToolCalls, info: TurnInfo, stream: vscode.ChatResponseStream): void {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk': {
        const c = (u as { content: { type: string; text?: string } }).content;
        if (c.type === 'text' && c.text) renderer.text(c.text);
        return;
      }
      case 'agent_thought_chunk': {
        const c = (u as { content: { type: string; text?: string } }).content;
        if (c.type === 'text' && c.text) renderer.thinking(c.text);
        return;
      }
      case 'tool_call':
      case 'tool_call_update':
        renderer.tool(tools.fold(u as unknown as ToolCallFields));
        return;
      case 'plan': {
        const entries = (u as { entries: PlanEntry[] }).entries;
        info.plan = entries;
        const done = entries.filter((e) => e.status === 'completed').length;
        const now = entries.find((e) => e.status === 'in_progress');
        stream.progress(visible(`Plan: ${done} of ${entries.length} done${now ? ` — ${now.content}` : ''}`));
        return;
      }
      case 'usage_update': {
        const x = u as { used: number; size: number; cost?: { amount: number; currency: string } | null };
        info.usage = { ...info.usage, usage: { used: x.used, size: x.size, ...(x.cost ? { cost: x.cost } : {}) } };
        return;
      }
    }
  }

  /**
   * Asks the user in the chat (VS Code's confirmation of the agent-action tool) whether
   * the agent may do what it asks; answers with the agent's option for once.
   */
  private async permission(req: RequestPermissionParams, request: vscode.ChatRequest, renderer: TurnRenderer, tools: ToolCalls, token: vscode.CancellationToken, signal: AbortSignal): Promise<PermissionOutcome> {
    const input: AgentActionInput = { title: req.toolCall.title ?? tools.title(req.toolCall.toolCallId) ?? null, kind: req.toolCall.kind ?? null, raw_input: req.toolCall.rawInput };
    const allowed = await this.ask(input, request, token);
    if (signal.aborted) return { outcome: { outcome: 'cancelled' } };
    if (!allowed) renderer.declined(actionTitle(input));
    const kinds = allowed ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
    const option = req.options.find((o) => o.kind === kinds[0]) ?? req.options.find((o) => kinds.includes(o.kind));
    return option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : { outcome: { outcome: 'cancelled' } };
  }

  private async ask(input: AgentActionInput, request: vscode.ChatRequest, token: vscode.CancellationToken): Promise<boolean> {
    // An editor without the tool API: the user is asked in a dialog instead.
    if (typeof vscode.lm?.invokeTool !== 'function') return confirmInDialog(input);
    try {
      const result = await vscode.lm.invokeTool(AGENT_ACTION_TOOL, { input, toolInvocationToken: request.toolInvocationToken }, token);
      // VS Code answers a skipped confirmation with a result of its own words, without
      // running the tool: anything but the tool's approval is a no.
      return isApproval(toolResultContent(result.content));
    } catch {
      return false;
    }
  }

  /** `/config`: the agent's settings in this chat's session, or one of them set. */
  private async config(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, agent: string): Promise<vscode.ChatResult> {
    const last = lastSession(context);
    // The exchange is not the agent's; the chat's session goes on in the next turn.
    const result: vscode.ChatResult = { metadata: { parley: { agent: last?.agent ?? agent, sessionId: last?.sessionId } } satisfies TurnMetadata };
    if (!last || !this.ctx.acp.holds(last.sessionId)) {
      stream.markdown('There is no conversation with the agent in this chat yet: send it a message first, then `/config`.');
      return result;
    }
    try {
      await config(this.ctx.acp, last.sessionId, request.prompt, stream);
      return result;
    } catch (err) {
      return { ...result, errorDetails: { message: errorText(err) } };
    }
  }

  /** Shows what parley said of the turn besides its reply. */
  private showInfo(stream: vscode.ChatResponseStream, sessionId: string, agent: string, info: TurnInfo): void {
    // Text first, buttons last: VS Code folds text that comes between buttons into a
    // group of "steps".
    if (info.plan && info.plan.length > 0) {
      const md = new vscode.MarkdownString('\n\n**Plan**\n');
      for (const e of info.plan) md.appendMarkdown(`\n- ${e.status === 'completed' ? '☑' : '☐'} `).appendText(visible(e.content));
      stream.markdown(md.appendMarkdown('\n'));
    }
    const line = usageLine(info.usage);
    if (line) stream.markdown(new vscode.MarkdownString('\n\n').appendText(visible(line)).appendMarkdown('\n'));
    if (info.changes.length > 0) showChanges(stream, sessionId, info.changes);
    if (info.signIn) showSignIn(stream, sessionId, agent, info.signIn);
  }
}

/** The usage line shown after a turn, or undefined when the agent reported none. */
export function usageLine(note: Usage | undefined): string | undefined {
  if (!note || (!note.usage && !note.turn)) return undefined;
  const n = (x: number) => x.toLocaleString('en-US');
  const parts: string[] = [];
  if (note.usage) {
    parts.push(`context ${n(note.usage.used)} of ${n(note.usage.size)} tokens`);
    const cost = note.usage.cost;
    if (cost) parts.push(`${cost.currency === 'USD' ? '$' : cost.currency + ' '}${cost.amount.toFixed(2)} so far`);
  }
  if (note.turn) parts.push(`this turn ${n(note.turn.inputTokens)} in, ${n(note.turn.outputTokens)} out`);
  return `Usage: ${parts.join(' · ')}`;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
