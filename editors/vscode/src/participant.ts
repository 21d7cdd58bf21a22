// The chat participant @parley: the agent itself in VS Code's chat, rather than a raw
// model. It talks to the backend with the same chat requests as the model provider, but
// declares that it renders the agent's thoughts and tool calls itself, and runs the tool
// calls the backend hands back (the agent's permission requests, and VS Code tools the
// user referenced with #) through vscode.lm.invokeTool, so that VS Code asks the user in
// the chat. It also declares the notifications that show what a model's reply cannot:
// the agent's questions (questions.ts), its usage after each turn, the files each turn
// changed with buttons to see their diff and undo them (review.ts), and the sign-in an
// agent needs (signin.ts); `/config` shows and changes the agent's settings
// (settings.ts).

import * as vscode from 'vscode';
import { BackendError, RequestCancelledError, type Backend, type LogSink } from './backend';
import { actionTitle, APPROVED, confirmInDialog, isApproval } from './agentAction';
import { toolResultContent, workspaceRoots } from './convert';
import type { ParleyModel } from './models';
import { answerElicitation } from './questions';
import { TurnRenderer } from './render';
import { showChanges } from './review';
import { config } from './settings';
import { showSignIn } from './signin';
import {
  AGENT_ACTION_TOOL,
  PARTICIPANT_NOTIFICATIONS,
  type AgentActionInput,
  type ChangedTurn,
  type ChangesNote,
  type ChatRequestParams,
  type ConversationNote,
  type ElicitationNote,
  type SignInNote,
  type StreamedPart,
  type ToolDefinition,
  type UsageNote,
  type WireMessage,
  type WirePart,
} from './wire';
import { visible } from './visible';

export const PARTICIPANT_ID = 'parley.agent';

/** The most tool round trips in one turn before the participant stops asking. */
const MAX_ROUNDS = 100;

/**
 * What a turn leaves in ChatResult.metadata, so that the next turn can send the exact
 * history; and the backend's conversation, for /config.
 */
export interface TurnMetadata {
  parley: { model: string; messages: WireMessage[]; conversationId?: string };
}

/** What the backend said of a turn besides its reply (its notifications). */
interface TurnInfo {
  conversationId?: string;
  usage?: UsageNote;
  changes: ChangedTurn[];
  signIn?: SignInNote;
}

export interface ParticipantContext {
  backend: Backend;
  log: LogSink;
  /** The models the backend offers, listing them if needed. */
  models(): Promise<ParleyModel[]>;
  /** The agent to use when the chat's model is not one of parley's (the parley.chat.agent setting). */
  defaultAgent(): string;
  /** The definition of the agent-action tool, as contributed in package.json. */
  agentActionTool(): ToolDefinition;
  /** Whether to try the proposed chat API (the setting parley.chat.toolInvocationParts). */
  useProposedApi(): boolean;
  onChosen(model: ParleyModel): void;
}

const user = (text: string): WireMessage => ({ role: 'user', content: [{ type: 'text', value: text }] });

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

/** The markdown text of an earlier response, for turns that left no metadata. */
function responseText(turn: vscode.ChatResponseTurn): string {
  return turn.response
    .map((p) => (p instanceof vscode.ChatResponseMarkdownPart ? p.value.value : ''))
    .join('');
}

/**
 * The conversation so far, as the backend got it: each earlier turn's exact messages from
 * its metadata (tool calls and results included), else its prompt and reply text.
 */
export function historyMessages(context: vscode.ChatContext): WireMessage[] {
  const out: WireMessage[] = [];
  let prompt: string | undefined;
  for (const turn of context.history) {
    if (turn instanceof vscode.ChatRequestTurn) {
      prompt = promptText({ prompt: turn.prompt, command: turn.command, references: turn.references });
      continue;
    }
    if (!(turn instanceof vscode.ChatResponseTurn) || prompt === undefined) continue;
    const meta = (turn.result.metadata as TurnMetadata | undefined)?.parley;
    if (meta && Array.isArray(meta.messages)) out.push(...meta.messages);
    else {
      out.push(user(prompt));
      const text = responseText(turn);
      if (text) out.push({ role: 'assistant', content: [{ type: 'text', value: text }] });
    }
    prompt = undefined;
  }
  return out;
}

type ToolCall = Extract<WirePart, { type: 'tool_call' }>;

/** Outcome of running the tool calls of one round. */
type RoundOutcome = { results: WirePart[] } | { declined: string };

export class ParleyParticipant {
  constructor(private readonly ctx: ParticipantContext) {}

  readonly handler: vscode.ChatRequestHandler = (request, context, stream, token) => this.handle(request, context, stream, token);

  private async pickModel(request: vscode.ChatRequest): Promise<ParleyModel | string> {
    const models = await this.ctx.models();
    const chosen = request.model?.vendor === 'parley' ? request.model.id : this.ctx.defaultAgent();
    const model = models.find((m) => m.id === chosen);
    if (model) return model;
    const known = models.map((m) => m.id).join(', ') || 'none';
    return `The agent "${chosen}" is not available (available: ${known}). Choose a parley model in the model picker, or set parley.chat.agent.`;
  }

  private tools(request: vscode.ChatRequest): ToolDefinition[] {
    const tools = [this.ctx.agentActionTool()];
    for (const ref of request.toolReferences ?? []) {
      const t = (vscode.lm?.tools ?? []).find((x) => x.name === ref.name);
      if (t && t.name !== AGENT_ACTION_TOOL) tools.push({ name: t.name, description: t.description, inputSchema: t.inputSchema ?? {} });
    }
    return tools;
  }

  async handle(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    let model: ParleyModel | string;
    try {
      model = await this.pickModel(request);
    } catch (err) {
      return { errorDetails: { message: errorText(err) } };
    }
    if (typeof model === 'string') return { errorDetails: { message: model } };
    this.ctx.onChosen(model);
    if (request.command === 'config') return this.config(model, request, context, stream);

    const turn: WireMessage[] = [user(promptText(request))];
    const history = historyMessages(context);
    const renderer = new TurnRenderer(stream, this.ctx.log, this.ctx.useProposedApi());
    const tools = this.tools(request);
    const info: TurnInfo = { conversationId: lastConversation(context), changes: [] };
    // The turn as VS Code showed it, for the next turn's history. A turn that did not
    // finish keeps what was shown (a declined call without its result, a cancelled reply
    // as far as it got): the backend reads that as a refusal or a cancel.
    const result = (): vscode.ChatResult => ({ metadata: { parley: { model: model.id, messages: turn, conversationId: info.conversationId } } satisfies TurnMetadata });
    // What the turn leaves besides its reply: its usage, the files it changed, a sign-in.
    const finish = (): vscode.ChatResult => {
      this.showInfo(stream, model, info);
      return result();
    };
    try {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const reply: WireMessage = { role: 'assistant', content: [] };
        try {
          await this.round(model, [...history, ...turn], tools, renderer, token, reply, info, stream);
        } finally {
          if (reply.content.length > 0) turn.push(reply);
        }
        const calls = reply.content.filter((p): p is ToolCall => p.type === 'tool_call');
        if (calls.length === 0) return finish();
        const outcome = await this.runTools(calls, request, renderer, token);
        if ('declined' in outcome) {
          renderer.declined(outcome.declined);
          return finish();
        }
        turn.push({ role: 'user', content: outcome.results });
      }
      stream.markdown(`\n\nStopped after ${MAX_ROUNDS} tool round trips in one turn.`);
      return finish();
    } catch (err) {
      if (token.isCancellationRequested || err instanceof RequestCancelledError || (err instanceof BackendError && err.cancelled)) return finish();
      return { ...finish(), errorDetails: { message: errorText(err) } };
    }
  }

  /** `/config`: the agent's settings in this conversation, or one of them set. */
  private async config(model: ParleyModel, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
    const conversationId = lastConversation(context);
    // The exchange is not the agent's: it is left out of the history the agent is sent.
    const result: vscode.ChatResult = { metadata: { parley: { model: model.id, messages: [], conversationId } } satisfies TurnMetadata };
    if (!conversationId) {
      stream.markdown('There is no conversation with the agent in this chat yet: send it a message first, then `/config`.');
      return result;
    }
    try {
      await config(this.ctx.backend, conversationId, request.prompt, stream);
      return result;
    } catch (err) {
      return { ...result, errorDetails: { message: errorText(err) } };
    }
  }

  /** Shows what the backend said of the turn besides its reply. */
  private showInfo(stream: vscode.ChatResponseStream, model: ParleyModel, info: TurnInfo): void {
    // Text first, buttons last: VS Code folds text that comes between buttons into a
    // group of "steps".
    const line = usageLine(info.usage);
    if (line) stream.markdown(new vscode.MarkdownString('\n\n').appendText(visible(line)).appendMarkdown('\n'));
    if (info.conversationId && info.changes.length > 0) showChanges(stream, info.conversationId, info.changes);
    if (info.signIn) showSignIn(stream, info.signIn, model.agent ?? {});
  }

  /** One chat request: streams the reply into the renderer and into reply, and what else the backend says into info. */
  private async round(
    model: ParleyModel,
    messages: WireMessage[],
    tools: ToolDefinition[],
    renderer: TurnRenderer,
    token: vscode.CancellationToken,
    reply: WireMessage,
    info: TurnInfo,
    stream: vscode.ChatResponseStream,
  ): Promise<void> {
    const params: ChatRequestParams = {
      modelId: model.id,
      messages,
      agent: model.agent,
      options: { tools, toolMode: 'auto' },
      ...workspaceRoots(),
      capabilities: { parts: ['thinking', 'tool_invocation'], notifications: PARTICIPANT_NOTIFICATIONS },
    };
    await this.ctx.backend.request('lm/provideLanguageModelChatResponse', params, {
      token,
      onNotification: (n) => {
        switch (n.method) {
          case 'lm/conversation':
            info.conversationId = (n.params as ConversationNote).conversationId;
            return;
          case 'lm/usage':
            info.usage = n.params as UsageNote;
            return;
          case 'lm/changes': {
            const t = (n.params as ChangesNote).turn;
            info.changes = [...info.changes.filter((x) => x.number !== t.number), t];
            return;
          }
          case 'lm/signInRequired':
            info.signIn = n.params as SignInNote;
            return;
          case 'lm/elicitation':
            // The agent waits for the answer: the request stays open meanwhile.
            void answerElicitation(this.ctx.backend, this.ctx.log, n.params as ElicitationNote, stream);
            return;
          case 'lm/responsePart':
            break;
          default:
            return;
        }
        const part = (n.params as { part: StreamedPart }).part;
        switch (part.type) {
          case 'text':
            renderer.text(part.value);
            reply.content.push(part);
            break;
          case 'tool_call':
            reply.content.push(part);
            break;
          case 'thinking':
            renderer.thinking(part.value);
            break;
          case 'tool_invocation':
            renderer.tool(part);
            break;
        }
      },
    });
  }

  /** Runs the calls VS Code has to run: an agent action asks the user; other tools run through VS Code. */
  private async runTools(calls: ToolCall[], request: vscode.ChatRequest, renderer: TurnRenderer, token: vscode.CancellationToken): Promise<RoundOutcome> {
    const results: WirePart[] = [];
    for (const call of calls) {
      const input = (call.parameters ?? {}) as object;
      if (call.toolName === AGENT_ACTION_TOOL && typeof vscode.lm?.invokeTool !== 'function') {
        // An editor without the tool API: the user is asked in a dialog instead.
        if (!(await confirmInDialog(input as AgentActionInput))) return { declined: actionTitle(input as AgentActionInput) };
        results.push({ type: 'tool_result', toolCallId: call.toolCallId, result: [{ value: APPROVED }] });
        continue;
      }
      try {
        const result = await vscode.lm.invokeTool(call.toolName, { input, toolInvocationToken: request.toolInvocationToken }, token);
        const content = toolResultContent(result.content);
        // VS Code answers a skipped confirmation with a result of its own words, without
        // running the tool: for an agent action, anything but the tool's approval is a no.
        if (call.toolName === AGENT_ACTION_TOOL && !isApproval(content)) return { declined: actionTitle(input as AgentActionInput) };
        results.push({ type: 'tool_result', toolCallId: call.toolCallId, result: content });
      } catch (err) {
        if (token.isCancellationRequested) throw new RequestCancelledError();
        if (call.toolName === AGENT_ACTION_TOOL) return { declined: actionTitle(input as AgentActionInput) };
        if (isCancellation(err)) return { declined: call.toolName };
        // A tool that failed: the agent gets the error as the result and goes on.
        renderer.text(`\n\n_${call.toolName} failed: ${errorText(err)}_\n`);
        results.push({ type: 'tool_result', toolCallId: call.toolCallId, result: [{ value: `ERROR: ${errorText(err)}` }] });
      }
    }
    return { results };
  }
}

/** The backend's conversation of the chat so far, from the last turn that named it. */
function lastConversation(context: vscode.ChatContext): string | undefined {
  for (let i = context.history.length - 1; i >= 0; i--) {
    const turn = context.history[i];
    if (!(turn instanceof vscode.ChatResponseTurn)) continue;
    const id = (turn.result.metadata as TurnMetadata | undefined)?.parley?.conversationId;
    if (id) return id;
  }
  return undefined;
}

/** The usage line shown after a turn, or undefined when the agent reported none. */
export function usageLine(note: UsageNote | undefined): string | undefined {
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

function isCancellation(err: unknown): boolean {
  return err instanceof vscode.CancellationError || (err instanceof Error && /cancel/i.test(err.name + err.message));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
