// Sign-in in @parley: an agent that needs the user signed in says so in its reply (the
// backend writes the parley login command of each method there), and @parley offers a
// button per method that runs that command in a terminal of VS Code, where the user
// completes the sign-in (a browser, a code, a program of the agent's). When it succeeds
// the backend is told (lm/signedIn): the agent's next conversation starts a new process,
// which knows it.

import * as vscode from 'vscode';
import type { Backend, LogSink } from './backend';
import type { AgentDefinition, SignInNote, SignedInParams } from './wire';

export const SIGN_IN_COMMAND = 'parley.signIn';

/** What a sign-in button asks for: parley's arguments, and the agent to tell the backend of. */
export interface SignInArgs {
  command: string[];
  method: string;
  modelId: string;
  agent: AgentDefinition;
}

/** Offers the agent's sign-in methods, one button each. */
export function showSignIn(stream: vscode.ChatResponseStream, note: SignInNote, agent: AgentDefinition): void {
  for (const m of note.methods) {
    stream.button({ command: SIGN_IN_COMMAND, title: `Sign in: ${m.name}`, arguments: [{ command: m.command, method: m.name, modelId: note.modelId, agent } satisfies SignInArgs] });
  }
}

/** Runs the sign-in in a terminal; resolves once the terminal has closed. */
export async function signIn(backend: Backend, log: LogSink, parley: () => Promise<string>, args: SignInArgs): Promise<boolean> {
  const bin = await parley();
  const terminal = vscode.window.createTerminal({ name: `parley: sign in (${args.method})`, shellPath: bin, shellArgs: args.command });
  terminal.show();
  log.appendLine(`[client] signing in: ${bin} ${args.command.join(' ')}`);
  const code = await new Promise<number | undefined>((resolve) => {
    const sub = vscode.window.onDidCloseTerminal((t) => {
      if (t !== terminal) return;
      sub.dispose();
      resolve(t.exitStatus?.code);
    });
  });
  if (code !== 0) {
    void vscode.window.showErrorMessage(`parley: the sign-in did not succeed (exit status ${code ?? 'unknown'}); the terminal said why.`);
    return false;
  }
  backend.notify('lm/signedIn', { modelId: args.modelId, agent: args.agent } satisfies SignedInParams);
  void vscode.window.showInformationMessage('parley: signed in. Send your message again.');
  return true;
}
