// The agent's questions (ACP elicitations) in @parley: a form asked field by field in VS
// Code's quick input (a pick for a choice or yes/no, an input box for text and numbers, a
// secret one without echo), or a web page the user may agree to open. What the user gives
// is checked by parley against the form before anything reaches the agent; an answer it
// refuses is asked again (parley sends the question again after a _parley/notice saying
// why), with its reason.

import * as vscode from 'vscode';
import type { ElicitationAnswer, ElicitationParams, JsonSchemaField } from './acpTypes';
import type { LogSink } from './parleyProcess';
import { pageRefusal } from './pageUrl';
import { visible } from './visible';

/** One field of a form the agent asks the user to fill in. */
export interface ElicitationField {
  name: string;
  title: string;
  description?: string;
  kind: 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'multi_choice' | 'unknown';
  required?: boolean;
  /** What is typed must not be shown. */
  secret?: boolean;
  default?: unknown;
  choices?: Array<{ value: string; title: string; description?: string }>;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  min?: number;
  max?: number;
  minItems?: number;
  maxItems?: number;
}

/** A value the user gave for a field; SKIP: none (an optional field left empty). */
const SKIP = Symbol('skip');
type FieldValue = unknown;

/**
 * Asks the user the agent's question (elicitation/create as parley acp sends it) and
 * returns the answer; dismissing any step cancels it. refused is why parley refused the
 * answer before, when it asks again.
 */
export async function answerElicitation(log: LogSink, agent: string, e: ElicitationParams, stream?: vscode.ChatResponseStream, refused = '', signal?: AbortSignal): Promise<ElicitationAnswer> {
  if (!refused) stream?.markdown(new vscode.MarkdownString('\n\n**' + visible(agent || 'The agent') + ' asks:** ').appendText(visible(e.message)).appendMarkdown('\n\n'));
  try {
    if (e.mode === 'url' && e.url) {
      const refusal = pageRefusal(e.url);
      if (refusal) {
        void vscode.window.showWarningMessage(`parley declined ${visible(agent)}'s request to open a page: ${refusal}`);
        return { action: 'decline' };
      }
      const host = hostOf(e.url);
      const warn = host.split('.').some((l) => l.startsWith('xn--')) ? ' (its name uses letters that can imitate another site: check it)' : '';
      const choice = await vscode.window.showInformationMessage(visible(`${agent} asks you to open ${host}${warn}: ${e.message}`), { modal: false }, 'Open', 'Decline');
      if (choice === 'Open') {
        await vscode.env.openExternal(vscode.Uri.parse(e.url, true));
        return { action: 'accept' };
      }
      return { action: choice === undefined ? 'cancel' : 'decline' };
    }
    const fields = formFields(e);
    if (fields.some((f) => f.kind === 'unknown' && f.required)) {
      void vscode.window.showWarningMessage(visible(`${agent} asks something parley cannot show (a field of a kind it does not know): it is declined.`));
      return { action: 'decline' };
    }
    const content: Record<string, unknown> = {};
    for (const field of fields) {
      if (signal?.aborted) return { action: 'cancel' };
      const v = await askField(agent, e.message, field, refused);
      if (v === undefined) return { action: 'cancel' };
      if (v !== SKIP) content[field.name] = v;
    }
    return { action: 'accept', content };
  } catch (err) {
    log.appendLine(`[client] answering the agent's question: ${err instanceof Error ? err.message : String(err)}`);
    return { action: 'cancel' };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The form's fields in the order the agent wrote them (parley gives it in _meta.parley.order). */
export function formFields(e: ElicitationParams): ElicitationField[] {
  const props = e.requestedSchema?.properties ?? {};
  const required = new Set(e.requestedSchema?.required ?? []);
  const order = e._meta?.parley?.order ?? Object.keys(props);
  return order.filter((n) => props[n]).map((name) => field(name, props[name], required.has(name)));
}

function field(name: string, s: JsonSchemaField, required: boolean): ElicitationField {
  const base = { name, title: s.title || name, description: s.description, required, default: s.default };
  const choices = (values: string[] | undefined, titles: Array<{ const: string; title?: string }> | undefined, names?: string[]) =>
    titles ? titles.map((c) => ({ value: c.const, title: c.title || c.const })) : (values ?? []).map((v, i) => ({ value: v, title: names?.[i] || v }));
  switch (s.type) {
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'number':
    case 'integer':
      return { ...base, kind: s.type, min: s.minimum, max: s.maximum };
    case 'array':
      return { ...base, kind: 'multi_choice', choices: choices(s.items?.enum, s.items?.anyOf) };
    case 'string':
      if (s.enum || s.oneOf) return { ...base, kind: 'choice', choices: choices(s.enum, s.oneOf, s.enumNames) };
      return { ...base, kind: 'text', minLength: s.minLength, maxLength: s.maxLength, format: s.format, secret: s.format === 'password' || /password|secret|token|api.?key/i.test(name) };
  }
  return { ...base, kind: 'unknown' };
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
