// The chat participant @parley: the agent itself in VS Code's chat, rather than a raw
// model. It talks to the backend with the same chat requests as the model provider, but
// declares that it renders the agent's thoughts and tool calls itself, and runs the tool
// calls the backend hands back (the agent's permission requests, and VS Code tools the
// user referenced with #) through vscode.lm.invokeTool, so that VS Code asks the user in
// the chat.

import * as vscode from 'vscode';
import { BackendError, RequestCancelledError, type Backend, type LogSink } from './backend';
import { actionTitle, APPROVED, confirmInDialog, isApproval } from './agentAction';
import { toolResultContent, workspaceRoots } from './convert';
import type { ParleyModel } from './models';
import { TurnRenderer } from './render';
import { AGENT_ACTION_TOOL, type AgentActionInput, type ChatRequestParams, type StreamedPart, type ToolDefinition, type WireMessage, type WirePart } from './wire';

export const PARTICIPANT_ID = 'parley.agent';

/** The most tool round trips in one turn before the participant stops asking. */
const MAX_ROUNDS = 100;

/** What a turn leaves in ChatResult.metadata, so that the next turn can send the exact history. */
export interface TurnMetadata {
  parley: { model: string; messages: WireMessage[] };
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

    const turn: WireMessage[] = [user(promptText(request))];
    const history = historyMessages(context);
    const renderer = new TurnRenderer(stream, this.ctx.log, this.ctx.useProposedApi());
    const tools = this.tools(request);
    // The turn as VS Code showed it, for the next turn's history. A turn that did not
    // finish keeps what was shown (a declined call without its result, a cancelled reply
    // as far as it got): the backend reads that as a refusal or a cancel.
    const result = (): vscode.ChatResult => ({ metadata: { parley: { model: model.id, messages: turn } } satisfies TurnMetadata });
    try {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const reply: WireMessage = { role: 'assistant', content: [] };
        try {
          await this.round(model, [...history, ...turn], tools, renderer, token, reply);
        } finally {
          if (reply.content.length > 0) turn.push(reply);
        }
        const calls = reply.content.filter((p): p is ToolCall => p.type === 'tool_call');
        if (calls.length === 0) return result();
        const outcome = await this.runTools(calls, request, renderer, token);
        if ('declined' in outcome) {
          renderer.declined(outcome.declined);
          return result();
        }
        turn.push({ role: 'user', content: outcome.results });
      }
      stream.markdown(`\n\nStopped after ${MAX_ROUNDS} tool round trips in one turn.`);
      return result();
    } catch (err) {
      if (token.isCancellationRequested || err instanceof RequestCancelledError || (err instanceof BackendError && err.cancelled)) return result();
      return { ...result(), errorDetails: { message: errorText(err) } };
    }
  }

  /** One chat request: streams the reply into the renderer and into reply. */
  private async round(model: ParleyModel, messages: WireMessage[], tools: ToolDefinition[], renderer: TurnRenderer, token: vscode.CancellationToken, reply: WireMessage): Promise<void> {
    const params: ChatRequestParams = {
      modelId: model.id,
      messages,
      agent: model.agent,
      options: { tools, toolMode: 'auto' },
      ...workspaceRoots(),
      capabilities: { parts: ['thinking', 'tool_invocation'] },
    };
    await this.ctx.backend.request('lm/provideLanguageModelChatResponse', params, {
      token,
      onNotification: (n) => {
        if (n.method !== 'lm/responsePart') return;
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

function isCancellation(err: unknown): boolean {
  return err instanceof vscode.CancellationError || (err instanceof Error && /cancel/i.test(err.name + err.message));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
