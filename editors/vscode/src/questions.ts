// The agent's questions (ACP elicitations) in @parley: a form asked field by field in VS
// Code's quick input (a pick for a choice or yes/no, an input box for text and numbers, a
// secret one without echo), or a web page the user may agree to open. What the user gives
// is checked by the backend against the form before anything reaches the agent; an answer
// it refuses is asked again, with its reason.

import * as vscode from 'vscode';
import { BackendError, type Backend, type LogSink } from './backend';
import { pageRefusal } from './pageUrl';
import { ErrorCodes, type ElicitationField, type ElicitationNote } from './wire';
import { visible } from './visible';

/** How many times a refused answer is asked again before the question is cancelled. */
const MAX_TRIES = 3;

/** A value the user gave for a field; SKIP: none (an optional field left empty). */
const SKIP = Symbol('skip');
type FieldValue = unknown;

/** Asks the user the agent's question and answers it; dismissing any step cancels it. */
export async function answerElicitation(backend: Backend, log: LogSink, note: ElicitationNote, stream?: vscode.ChatResponseStream): Promise<void> {
  const e = note.elicitation;
  const answer = (action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>) =>
    backend.request('lm/answerElicitation', { conversationId: note.conversationId, id: e.id, action, content });
  stream?.markdown(new vscode.MarkdownString('\n\n**' + visible(e.agent || 'The agent') + ' asks:** ').appendText(visible(e.message)).appendMarkdown('\n\n'));
  try {
    if (e.mode === 'url' && e.url) {
      const refusal = pageRefusal(e.url.url);
      if (refusal) {
        void vscode.window.showWarningMessage(`parley declined ${visible(e.agent)}'s request to open a page: ${refusal}`);
        await answer('decline');
        return;
      }
      const warn = e.url.punycode ? ' (its name uses letters that can imitate another site: check it)' : '';
      const choice = await vscode.window.showInformationMessage(visible(`${e.agent} asks you to open ${e.url.host}${warn}: ${e.message}`), { modal: false }, 'Open', 'Decline');
      if (choice === 'Open') {
        await vscode.env.openExternal(vscode.Uri.parse(e.url.url, true));
        await answer('accept');
        return;
      }
      await answer(choice === undefined ? 'cancel' : 'decline');
      return;
    }
    if (!e.answerable) {
      void vscode.window.showWarningMessage(visible(`${e.agent} asks something parley cannot show (a field of a kind it does not know): it is declined.`));
      await answer('decline');
      return;
    }
    let refused = '';
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      const content: Record<string, unknown> = {};
      for (const field of e.fields ?? []) {
        const v = await askField(e.agent, e.message, field, refused);
        if (v === undefined) {
          await answer('cancel');
          return;
        }
        if (v !== SKIP) content[field.name] = v;
      }
      try {
        await answer('accept', content);
        return;
      } catch (err) {
        if (!(err instanceof BackendError) || err.code !== ErrorCodes.invalidParams) throw err;
        refused = err.message;
        void vscode.window.showErrorMessage(visible(`parley: ${err.message}`));
      }
    }
    await answer('cancel');
  } catch (err) {
    log.appendLine(`[client] answering the agent's question: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Asks one field; undefined when the user dismissed it. */
async function askField(agent: string, message: string, f: ElicitationField, refused: string): Promise<FieldValue | typeof SKIP | undefined> {
  // All of it the agent's words: made visible (visible.ts).
  const title = visible(`${agent}: ${message}`);
  const label = f.title + (f.required ? '' : ' (optional)');
  const placeHolder = visible([label, f.description, refused].filter(Boolean).join(' — '));
  switch (f.kind) {
    case 'boolean': {
      const items = [{ label: 'Yes', value: true as FieldValue }, { label: 'No', value: false as FieldValue }];
      if (!f.required) items.push({ label: 'Leave out', value: SKIP });
      const pick = await vscode.window.showQuickPick(items, { title, placeHolder, ignoreFocusOut: true });
      return pick?.value;
    }
    case 'choice': {
      const items: Array<vscode.QuickPickItem & { value: FieldValue }> = (f.choices ?? []).map((c) => ({ label: visible(c.title), description: c.title === c.value ? undefined : visible(c.value), detail: c.description === undefined ? undefined : visible(c.description), value: c.value }));
      if (!f.required) items.push({ label: 'Leave out', value: SKIP });
      const pick = await vscode.window.showQuickPick(items, { title, placeHolder, ignoreFocusOut: true });
      return pick?.value;
    }
    case 'multi_choice': {
      const items = (f.choices ?? []).map((c) => ({ label: visible(c.title), description: c.title === c.value ? undefined : visible(c.value), value: c.value }));
      const picks = await vscode.window.showQuickPick(items, { title, placeHolder, canPickMany: true, ignoreFocusOut: true });
      return picks?.map((p) => p.value);
    }
    case 'text':
    case 'number':
    case 'integer': {
      const text = await vscode.window.showInputBox({
        title,
        prompt: placeHolder,
        password: !!f.secret,
        value: f.default !== undefined && !f.secret ? String(f.default) : undefined,
        ignoreFocusOut: true,
        validateInput: (v) => checkTyped(f, v),
      });
      if (text === undefined) return undefined;
      if (text.trim() === '') return SKIP;
      return f.kind === 'text' ? text : Number(text);
    }
  }
  return SKIP; // a kind parley does not know, in an optional field: left out
}

/** What is wrong with what the user typed, as far as the client can tell; the backend checks the rest. */
export function checkTyped(f: ElicitationField, text: string): string | undefined {
  if (text.trim() === '') return f.required ? 'An answer is required.' : undefined;
  if (f.kind === 'number' && !Number.isFinite(Number(text))) return 'A number is needed.';
  if (f.kind === 'integer' && !Number.isInteger(Number(text))) return 'A whole number is needed.';
  if (f.kind === 'text' && f.minLength !== undefined && [...text].length < f.minLength) return `At least ${f.minLength} characters.`;
  if (f.kind === 'text' && f.maxLength !== undefined && [...text].length > f.maxLength) return `At most ${f.maxLength} characters.`;
  return undefined;
}
