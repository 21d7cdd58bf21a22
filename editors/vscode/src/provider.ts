// The LanguageModelChatProvider of the vendor "parley": parley's agents as models in
// VS Code's model picker and for any extension that calls vscode.lm.

import * as vscode from 'vscode';
import { BackendError, BackendStoppedError, RequestCancelledError, type LogSink } from './backend';
import { tokenCountText, toWireMessages, toWireToolMode, toWireTools, workspaceRoots } from './convert';
import { listModels, type ModelContext, type ParleyModel } from './models';
import type { ChatRequestParams, StreamedPart } from './wire';

/** What the provider needs from the rest of the extension. */
export interface ProviderContext {
  models(): ModelContext;
  log: LogSink;
  /** Shows a failure to find or start parley to the user (once per cause). */
  reportStartFailure(err: unknown): void;
  /** Called with the model of every chat request: the agents the user chose. */
  onChosen(model: ParleyModel): void;
  /** Called after every model listing. */
  onListed(models: ParleyModel[]): void;
}

/** Turns the client's errors into what VS Code expects: CancellationError, or an Error with a readable message. */
export function vscodeError(err: unknown): Error {
  if (err instanceof RequestCancelledError || (err instanceof BackendError && err.cancelled)) return new vscode.CancellationError();
  if (err instanceof Error) return new Error(err.message);
  return new Error(String(err));
}

export class ParleyChatProvider implements vscode.LanguageModelChatProvider<ParleyModel> {
  private readonly changed = new vscode.EventEmitter<void>();
  private lastListingError = '';
  /** Whether the backend refuses an agent action whose result is not the approval (from the latest listing). */
  private refusesUnapproved = false;
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;

  constructor(private readonly ctx: ProviderContext) {}

  /** Tells VS Code to ask for the models again (settings or the backend changed). */
  refresh(): void {
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }

  async provideLanguageModelChatInformation(options: vscode.PrepareLanguageModelChatModelOptions, token: vscode.CancellationToken): Promise<ParleyModel[]> {
    try {
      const { models, unresolved, refusesUnapproved } = await listModels(this.ctx.models(), options.silent, token);
      if (unresolved.length > 0) {
        this.ctx.log.appendLine(`[client] left out ${unresolved.join(', ')}: this parley does not say how to start them from VS Code (update parley)`);
      }
      this.refusesUnapproved = refusesUnapproved;
      this.lastListingError = '';
      this.ctx.onListed(models);
      return models;
    } catch (err) {
      if (err instanceof RequestCancelledError) return [];
      const message = `[client] listing the models: ${err instanceof Error ? err.message : String(err)}`;
      if (message !== this.lastListingError) this.ctx.log.appendLine(message); // VS Code asks often
      this.lastListingError = message;
      if (!options.silent) this.ctx.reportStartFailure(err);
      return [];
    }
  }

  async provideLanguageModelChatResponse(
    model: ParleyModel,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const { backend } = this.ctx.models();
    const params: ChatRequestParams = {
      modelId: model.id,
      messages: toWireMessages(messages, this.ctx.log, { refusesUnapproved: this.refusesUnapproved }),
      agent: model.agent,
      options: { tools: toWireTools(options.tools), toolMode: toWireToolMode(options.toolMode) },
      ...workspaceRoots(),
    };
    this.ctx.onChosen(model);
    try {
      await backend.request('lm/provideLanguageModelChatResponse', params, {
        token,
        onNotification: (n) => {
          if (n.method !== 'lm/responsePart') return;
          const part = (n.params as { part: StreamedPart }).part;
          if (part.type === 'text') progress.report(new vscode.LanguageModelTextPart(part.value));
          else if (part.type === 'tool_call') {
            progress.report(new vscode.LanguageModelToolCallPart(part.toolCallId, part.toolName, (part.parameters ?? {}) as object));
          }
        },
      });
    } catch (err) {
      if (!(err instanceof BackendError) && !(err instanceof RequestCancelledError) && !(err instanceof BackendStoppedError)) {
        this.ctx.reportStartFailure(err);
      }
      throw vscodeError(err);
    }
  }

  async provideTokenCount(model: ParleyModel, text: string | vscode.LanguageModelChatRequestMessage, token: vscode.CancellationToken): Promise<number> {
    const { backend } = this.ctx.models();
    try {
      const n = await backend.request<unknown>('lm/provideTokenCount', { modelId: model.id, text: tokenCountText(text, this.ctx.log) }, { token });
      if (typeof n !== 'number') throw new Error(`parley answered a token count with ${JSON.stringify(n)}, not a number`);
      return n;
    } catch (err) {
      throw vscodeError(err);
    }
  }
}
