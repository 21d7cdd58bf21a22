// The LanguageModelChatProvider of the vendor "parley": parley's agents as models in
// VS Code's model picker and for any extension that calls vscode.lm.

import * as vscode from 'vscode';
import { BackendError, BackendStoppedError, RequestCancelledError, type CancelToken, type LogSink } from './backend';
import { isCancelled } from './rpc';
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
  /** How long to wait before each retry of a listing that failed (ms); the last repeats. */
  listingRetryDelaysMs?: number[];
}

/**
 * A listing that failed or was cancelled is tried again after these delays (the last one
 * repeats until one succeeds): on a loaded machine the backend may start too slowly for
 * VS Code, which cancels the listing, and asks again only when told the models changed.
 */
const LISTING_RETRY_DELAYS_MS = [500, 1000, 2000, 5000, 10000, 30000];

/** How long a retried listing may take before it counts as failed. */
const LISTING_RETRY_TIMEOUT_MS = 60000;

/** Turns the client's errors into what VS Code expects: CancellationError, or an Error with a readable message. */
export function vscodeError(err: unknown): Error {
  if (err instanceof RequestCancelledError || isCancelled(err)) return new vscode.CancellationError();
  if (err instanceof Error) return new Error(err.message);
  return new Error(String(err));
}

/**
 * The LanguageModelChatProvider. The picker is never left empty by a listing that failed
 * or was cancelled: VS Code gets the models of the last listing that succeeded (none yet:
 * an empty list), the listing is tried again in the background (LISTING_RETRY_DELAYS_MS),
 * and once one succeeds VS Code is told the models changed
 * (onDidChangeLanguageModelChatInformation), so that it asks again and gets them.
 */
export class ParleyChatProvider implements vscode.LanguageModelChatProvider<ParleyModel> {
  private readonly changed = new vscode.EventEmitter<void>();
  private lastListingError = '';
  /** Whether the backend refuses an agent action whose result is not the approval (from the latest listing). */
  private refusesUnapproved = false;
  /** The models of the last listing that succeeded. */
  private known?: ParleyModel[];
  /** VS Code's last answer was not a fresh listing: announce the next one that succeeds. */
  private stale = false;
  private retryTimer?: ReturnType<typeof setTimeout>;
  private retries = 0;
  private disposed = false;
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;

  constructor(private readonly ctx: ProviderContext) {}

  /** Tells VS Code to ask for the models again (settings or the backend changed). */
  refresh(): void {
    this.changed.fire();
  }

  dispose(): void {
    this.disposed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.changed.dispose();
  }

  async provideLanguageModelChatInformation(options: vscode.PrepareLanguageModelChatModelOptions, token: vscode.CancellationToken): Promise<ParleyModel[]> {
    try {
      return this.listed(await listModels(this.ctx.models(), options.silent, token));
    } catch (err) {
      this.listingFailed(err, !options.silent);
      return this.known ?? [];
    }
  }

  /** Takes a listing that succeeded: VS Code gets its models, and retries stop. */
  private listed({ models, unresolved, refusesUnapproved }: Awaited<ReturnType<typeof listModels>>): ParleyModel[] {
    if (unresolved.length > 0) {
      this.ctx.log.appendLine(`[client] left out ${unresolved.join(', ')}: this parley does not say how to start them from VS Code (update parley)`);
    }
    this.refusesUnapproved = refusesUnapproved;
    this.lastListingError = '';
    this.known = models;
    this.stale = false;
    this.retries = 0;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.ctx.onListed(models);
    return models;
  }

  /** Notes a listing that failed or was cancelled, and has it tried again. */
  private listingFailed(err: unknown, report: boolean): void {
    this.stale = true;
    if (!(err instanceof RequestCancelledError)) {
      const message = `[client] listing the models: ${err instanceof Error ? err.message : String(err)}`;
      if (message !== this.lastListingError) this.ctx.log.appendLine(message); // VS Code asks often
      this.lastListingError = message;
      if (report) this.ctx.reportStartFailure(err);
    }
    this.retryLater();
  }

  private retryLater(): void {
    if (this.disposed || this.retryTimer) return;
    const delays = this.ctx.listingRetryDelaysMs ?? LISTING_RETRY_DELAYS_MS;
    const delay = delays[Math.min(this.retries, delays.length - 1)];
    this.retries++;
    this.retryTimer = setTimeout(() => void this.retry(), delay);
    this.retryTimer.unref?.(); // never what keeps a process alive
  }

  /** Lists the models again; once that succeeds, VS Code is told to ask for them. */
  private async retry(): Promise<void> {
    const timeout = timeoutToken(LISTING_RETRY_TIMEOUT_MS);
    try {
      const listing = await listModels(this.ctx.models(), true, timeout.token);
      this.retryTimer = undefined;
      if (this.disposed) return;
      const announce = this.stale;
      this.listed(listing);
      this.ctx.log.appendLine(`[client] the models are listed again (${listing.models.length})`);
      if (announce) this.changed.fire();
    } catch (err) {
      this.retryTimer = undefined;
      if (!this.disposed) this.listingFailed(err, false);
    } finally {
      timeout.dispose();
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
          // parley sends the agent's text made visible already (a U+202E as "<U+202E>");
          // it is reported as it came, since VS Code sends it back as history and parley
          // matches the conversation by it.
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

/** A token that is cancelled after ms, for a request nobody else bounds. */
function timeoutToken(ms: number): { token: CancelToken; dispose(): void } {
  const listeners: Array<() => unknown> = [];
  const token = {
    isCancellationRequested: false,
    onCancellationRequested(listener: () => unknown) {
      listeners.push(listener);
      return {
        dispose: () => {
          const i = listeners.indexOf(listener);
          if (i >= 0) listeners.splice(i, 1);
        },
      };
    },
  };
  const timer = setTimeout(() => {
    token.isCancellationRequested = true;
    for (const l of [...listeners]) l();
  }, ms);
  return { token, dispose: () => clearTimeout(timer) };
}
