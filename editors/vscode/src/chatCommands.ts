// The commands behind @parley's buttons: the diff of a changed file and its undo
// (review.ts), a setting's change (settings.ts), a sign-in (signin.ts). They take the
// button's arguments, which name the ACP session of parley acp (acpClient.ts).

import * as vscode from 'vscode';
import type { AcpClient } from './acpClient';
import type { LogSink } from './parleyProcess';
import { DIFF_SCHEME, DiffDocuments, UNDO_COMMAND, undo, VIEW_DIFF_COMMAND, viewDiff, type DiffArgs, type UndoArgs } from './review';
import { CHANGE_SETTING_COMMAND, changeSetting, type ChangeSettingArgs } from './settings';
import { SIGN_IN_COMMAND, signIn, type SignInArgs } from './signin';

export interface ChatCommandsContext {
  acp: AcpClient;
  log: LogSink;
  /** The parley binary, for a sign-in in a terminal. */
  parleyPath(): Promise<string>;
}

/** Registers the commands; the caller disposes of what it returns. */
export function registerChatCommands(ctx: ChatCommandsContext): vscode.Disposable[] {
  const docs = new DiffDocuments();
  return [
    vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, docs),
    vscode.commands.registerCommand(VIEW_DIFF_COMMAND, (args: DiffArgs) => viewDiff(ctx.acp, docs, args)),
    vscode.commands.registerCommand(UNDO_COMMAND, (args: UndoArgs) => undo(ctx.acp, docs, ctx.log, args)),
    vscode.commands.registerCommand(CHANGE_SETTING_COMMAND, (args: ChangeSettingArgs) => changeSetting(ctx.acp, args)),
    vscode.commands.registerCommand(SIGN_IN_COMMAND, (args: SignInArgs) => signIn(ctx.acp, ctx.log, ctx.parleyPath, args)),
  ];
}
