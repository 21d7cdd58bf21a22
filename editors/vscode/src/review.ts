// Review and undo of what a turn changed (issue 20), in @parley: after a turn, the files it
// created, changed and deleted, each with a button to see its diff in VS Code's diff
// editor and one to undo it, and one to undo the whole turn. parley keeps the record
// (_parley/changes, _parley/diff, _parley/undo); an undo never overwrites a file someone changed since
// the turn: it stops, says which file, and offers to show how it changed. A mode the turn
// changed is shown with the file (a diff of the text cannot show it), and a change that
// makes git run code (a hook, core.fsmonitor...) is flagged with the record's reason: the
// user's next git command would run it, outside any turn and any permission.

import * as vscode from 'vscode';
import type { AcpClient } from './acpClient';
import { CodeUndoConflict, MethodDiff, MethodUndo, type ChangedFile, type ChangedTurn, type ConflictData, type DiffParams, type DiffResult, type UndoParams, type UndoResult } from './parleyapi';
import type { LogSink } from './parleyProcess';
import { RpcError } from './rpc';
import { visible } from './visible';

export const VIEW_DIFF_COMMAND = 'parley.viewDiff';
export const UNDO_COMMAND = 'parley.undoChanges';

/** The scheme of the texts the diff editor shows (before and after a turn). */
export const DIFF_SCHEME = 'parley-diff';

/** What the diff button asks for: a file of a turn, or how it changed since the turn. */
export interface DiffArgs {
  sessionId: string;
  path: string;
  turn: number;
  since?: boolean;
  /** The mode change to name in the diff editor's title (not sent to parley). */
  mode?: string;
}

/** What an undo button asks for: a turn, or some of its files. */
export interface UndoArgs {
  sessionId: string;
  turn: number;
  paths?: string[];
}

const KIND_WORDS: Record<string, string> = { A: 'created', M: 'changed', D: 'deleted' };

/** Shows the files of the turns that changed some, each with its buttons. */
export function showChanges(stream: vscode.ChatResponseStream, sessionId: string, turns: ChangedTurn[]): void {
  for (const turn of turns) {
    const files: ChangedFile[] = turn.files;
    if (files.length === 0) continue;
    // One block of text, then the buttons: VS Code folds text that alternates with buttons
    // into a group of "steps" the user would have to open.
    const list = new vscode.MarkdownString(`\n\n**Files changed** by this turn (${files.length}):\n`);
    const runners = files.filter((f) => f.runsCode).length;
    if (runners > 0) {
      list.appendMarkdown(`\n> ⚠️ **${runners === 1 ? '1 change makes' : `${runners} changes make`} git run code**: look at ${runners === 1 ? 'it' : 'them'} before running git here.\n`);
    }
    for (const f of files) {
      list.appendMarkdown('\n- ').appendText(visible(`${KIND_WORDS[f.kind] ?? f.kind} ${f.rel}`)).appendMarkdown(` (+${f.added} −${f.removed})`);
      if (f.mode) list.appendMarkdown(' ').appendText(visible(`mode ${f.mode}`));
      if (f.note) list.appendMarkdown(' — ').appendText(visible(f.note));
      if (f.runsCode) list.appendMarkdown(' — ⚠️ **').appendText(visible(`makes git run code: ${f.runsCode}`)).appendMarkdown('**');
    }
    stream.markdown(list.appendMarkdown('\n'));
    for (const f of files) {
      stream.button({ command: VIEW_DIFF_COMMAND, title: visible(`Diff ${f.rel}`), arguments: [{ sessionId, path: f.path, turn: turn.number, ...(f.mode ? { mode: f.mode } : {}) } satisfies DiffArgs] });
      if (f.undoable) stream.button({ command: UNDO_COMMAND, title: visible(`Undo ${f.rel}`), arguments: [{ sessionId, turn: turn.number, paths: [f.path] } satisfies UndoArgs] });
    }
    if (files.filter((f) => f.undoable).length > 1) {
      stream.button({ command: UNDO_COMMAND, title: `Undo all ${files.length} files`, arguments: [{ sessionId, turn: turn.number } satisfies UndoArgs] });
    }
  }
}

/**
 * The texts the diff editor shows, served under DIFF_SCHEME. Only the latest are kept:
 * a diff opened long ago is not reopened from here.
 */
export class DiffDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;
  static readonly keep = 64;

  /** A URI whose document holds text, named name. */
  put(text: string, name: string): vscode.Uri {
    const key = `${++this.next}/${name}`;
    this.texts.set(key, text);
    for (const old of this.texts.keys()) {
      if (this.texts.size <= DiffDocuments.keep) break;
      this.texts.delete(old);
    }
    return vscode.Uri.from({ scheme: DIFF_SCHEME, path: '/' + key });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path.replace(/^\//, '')) ?? '';
  }
}

/** Opens the diff of a file in VS Code's diff editor. */
export async function viewDiff(acp: AcpClient, docs: DiffDocuments, args: DiffArgs): Promise<void> {
  let d: DiffResult;
  try {
    d = await acp.request<DiffResult>(MethodDiff, { sessionId: args.sessionId, path: args.path, turn: args.turn, since: args.since } satisfies DiffParams);
  } catch (err) {
    void vscode.window.showErrorMessage(visible(`parley: no diff of ${args.path}: ${errorText(err)}`));
    return;
  }
  const { before, after } = d;
  const rel = d.rel || d.path;
  if (before === null && after === null) {
    void vscode.window.showInformationMessage(visible(`parley: ${rel}: ${d.note || 'no text to show'}`));
    return;
  }
  const name = rel.split(/[\\/]/).pop() || rel;
  const mode = args.mode && !(d.changedSince || args.since) ? ` (mode ${args.mode})` : '';
  const title = visible(d.changedSince || args.since ? `${rel}: what changed since turn ${d.turn}` : `${rel}: turn ${d.turn}${mode}`);
  const left = docs.put(before ?? '', name);
  const right = docs.put(after ?? '', name);
  await vscode.commands.executeCommand('vscode.diff', left, right, title);
}

/**
 * Undoes a turn or some of its files. A file someone changed since the turn stops it:
 * nothing is undone, and the user may look at how the file changed.
 */
export async function undo(acp: AcpClient, docs: DiffDocuments, log: LogSink, args: UndoArgs): Promise<UndoResult | undefined> {
  try {
    const res = await acp.request<UndoResult>(MethodUndo, { sessionId: args.sessionId, turn: args.turn, paths: args.paths } satisfies UndoParams);
    const files = res.files.map((f) => `${f.rel} ${f.did}`);
    void vscode.window.showInformationMessage(visible(`parley: undid turn ${res.turns.join(', ') || args.turn}: ${files.join(', ') || 'nothing to do'}.`));
    return res;
  } catch (err) {
    const conflicts = err instanceof RpcError && err.code === CodeUndoConflict ? ((err.data as ConflictData | undefined)?.conflicts ?? []) : [];
    if (conflicts.length === 0) {
      void vscode.window.showErrorMessage(visible(`parley: the undo failed: ${errorText(err)}`));
      return undefined;
    }
    const first = conflicts[0];
    const words = conflicts.map((c) => `${c.rel} (${c.reason})`).join('; ');
    log.appendLine(`[client] undo refused: ${words}`);
    const choice = await vscode.window.showWarningMessage(visible(`parley: nothing was undone: ${words}.`), first.since ? 'Show the Difference' : 'OK');
    if (choice === 'Show the Difference') await viewDiff(acp, docs, { sessionId: args.sessionId, path: first.path, turn: first.turn, since: true });
    return undefined;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
