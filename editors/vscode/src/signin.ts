// Sign-in in @parley: an agent that needs the user signed in says so (parley acp's
// _parley/sign_in_required, with the agent's methods), and @parley offers a button per
// method. parley runs the sign-in (_parley/sign_in): a method of the agent's own at once,
// one that takes variables after asking for them in input boxes (a secret one without
// echo). A method that runs a program in a terminal runs `parley login` in a terminal of
// VS Code, where the user completes it (a browser, a code, the agent's program).

import * as vscode from 'vscode';
import type { AcpClient } from './acpClient';
import { MethodSignedIn, MethodSignIn, type SignedInParams, type SignInMethod, type SignInParams, type SignInRequiredNotification } from './parleyapi';
import type { LogSink } from './parleyProcess';
import { visible } from './visible';

export const SIGN_IN_COMMAND = 'parley.signIn';

/** What a sign-in button asks for: the session, the agent (as parley names it) and the method. */
export interface SignInArgs {
  sessionId: string;
  agent: string;
  method: SignInMethod;
}

/** Offers the agent's sign-in methods, one button each (a method parley refuses is named, without one). */
export function showSignIn(stream: vscode.ChatResponseStream, sessionId: string, agent: string, note: SignInRequiredNotification): void {
  const refused = note.methods.filter((m) => m.refused);
  if (refused.length > 0) {
    const md = new vscode.MarkdownString('\n\n');
    for (const m of refused) md.appendText(visible(`${m.name}: parley will not sign in with it: ${m.refused}`)).appendMarkdown('\n\n');
    stream.markdown(md);
  }
  for (const m of note.methods) {
    if (m.refused) continue;
    stream.button({ command: SIGN_IN_COMMAND, title: visible(`Sign in: ${m.name}`), arguments: [{ sessionId, agent, method: m } satisfies SignInArgs] });
  }
}

/** Signs in with the method; resolves true when parley says it succeeded. */
export async function signIn(acp: AcpClient, log: LogSink, parley: () => Promise<string>, args: SignInArgs): Promise<boolean> {
  const m = args.method;
  if (m.kind === 'terminal') return inTerminal(acp, log, parley, args);
  const vars: Record<string, string> = {};
  for (const v of m.fields ?? []) {
    const value = await vscode.window.showInputBox({ title: visible(`Sign in: ${m.name}`), prompt: visible(v.label || v.name), password: !!v.secret, ignoreFocusOut: true });
    if (value === undefined) return false;
    if (value !== '' || !v.optional) vars[v.name] = value;
  }
  try {
    await acp.request(MethodSignIn, { sessionId: args.sessionId, methodId: m.id, ...(m.fields?.length ? { vars } : {}) } satisfies SignInParams);
  } catch (err) {
    void vscode.window.showErrorMessage(visible(`parley: the sign-in did not succeed: ${err instanceof Error ? err.message : String(err)}`));
    return false;
  }
  void vscode.window.showInformationMessage('parley: signed in. Send your message again.');
  return true;
}

async function inTerminal(acp: AcpClient, log: LogSink, parley: () => Promise<string>, args: SignInArgs): Promise<boolean> {
  const bin = await parley();
  const shellArgs = ['login', '--agent', args.agent, '--method', args.method.id];
  const terminal = vscode.window.createTerminal({ name: `parley: sign in (${args.method.name})`, shellPath: bin, shellArgs });
  terminal.show();
  log.appendLine(`[client] signing in: ${bin} ${shellArgs.join(' ')}`);
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
  await renew(acp, log, args);
  void vscode.window.showInformationMessage('parley: signed in. Send your message again.');
  return true;
}

/**
 * Tells parley acp of a sign-in it did not run (the agent's process may not know of it):
 * new sessions of the agent get a new process, and the chat's session is closed, so that
 * its next message goes to one (the session loaded again there, or a new one seeded with
 * the chat).
 */
async function renew(acp: AcpClient, log: LogSink, args: SignInArgs): Promise<void> {
  if (acp.pid === undefined) return; // not running: the next start is a new process anyway
  try {
    await acp.request(MethodSignedIn, { agent: args.agent } satisfies SignedInParams);
    if (acp.holds(args.sessionId)) await acp.request('session/close', { sessionId: args.sessionId });
  } catch (err) {
    log.appendLine(`[client] parley acp was not told of the sign-in: ${err instanceof Error ? err.message : String(err)}`);
  }
}
