// The agent's settings (ACP session config options: model, mode, thought level, its own)
// in @parley: `@parley /config` lists them with a button to change each (a quick pick of
// its values), and `@parley /config ID VALUE` sets one (ACP's session/set_config_option).
// parley checks the setting and the value against what the agent offers.

import * as vscode from 'vscode';
import type { AcpClient } from './acpClient';
import type { ConfigOption, ConfigOptionValue } from './acpTypes';
import { visible } from './visible';

export const CHANGE_SETTING_COMMAND = 'parley.changeSetting';

/** One setting of the session, as the list and the quick pick show it. */
export interface Setting {
  id: string;
  name: string;
  description?: string;
  category?: string;
  kind: 'select' | 'boolean';
  current: string;
  values?: Array<{ id: string; name: string; description?: string; group?: string }>;
}

/** What a setting's button asks for. */
export interface ChangeSettingArgs {
  sessionId: string;
  id: string;
}

/** An ACP config option in the shape the list and the quick pick show. */
export function setting(o: ConfigOption): Setting {
  const values: Setting['values'] = [];
  for (const v of o.options ?? []) {
    if ('options' in v) for (const x of v.options) values.push(value(x, v.name));
    else values.push(value(v as ConfigOptionValue));
  }
  return { id: o.id, name: o.name, description: o.description ?? undefined, category: o.category ?? undefined, kind: o.type, current: String(o.currentValue), values };
}

function value(v: ConfigOptionValue, group?: string) {
  return { id: v.value, name: v.name, description: v.description ?? undefined, group };
}

/** The session's settings as parley acp last told them. */
function settingsOf(acp: AcpClient, sessionId: string): Setting[] {
  return (acp.configOptions(sessionId) ?? []).map(setting);
}

/** Sets one and returns the settings after. */
async function set(acp: AcpClient, sessionId: string, s: Setting | undefined, id: string, value: string): Promise<Setting[]> {
  const params: Record<string, unknown> = { sessionId, configId: id, value };
  if (s?.kind === 'boolean') Object.assign(params, { type: 'boolean', value: value === 'true' || value === 'on' });
  await acp.request('session/set_config_option', params);
  return settingsOf(acp, sessionId);
}

/** A setting's current value, in words. */
export function currentName(s: Setting): string {
  if (s.kind === 'boolean') return s.current === 'true' ? 'on' : 'off';
  return s.values?.find((v) => v.id === s.current)?.name || s.current;
}

/** Lists the settings in the chat, each with its button; or sets one when args name it. */
export async function config(acp: AcpClient, sessionId: string, args: string, stream: vscode.ChatResponseStream): Promise<void> {
  const [id, ...rest] = args.trim().split(/\s+/).filter(Boolean);
  if (id) {
    const value = rest.join(' ');
    if (!value) {
      stream.markdown(new vscode.MarkdownString('Give the value too: `/config ').appendText(visible(id)).appendMarkdown(' VALUE`.'));
      return;
    }
    const after = await set(acp, sessionId, settingsOf(acp, sessionId).find((x) => x.id === id), id, value);
    const s = after.find((x) => x.id === id);
    stream.markdown(new vscode.MarkdownString().appendText(visible(`${s?.name ?? id} is now ${s ? currentName(s) : value}.`)));
    return;
  }
  const settings = settingsOf(acp, sessionId);
  if (settings.length === 0) {
    stream.markdown('The agent offers no settings in this conversation.');
    return;
  }
  // One block of text, then the buttons: VS Code folds text that alternates with buttons
  // into a group of "steps" the user would have to open.
  const list = new vscode.MarkdownString('**Settings** of the agent in this conversation:\n');
  for (const s of settings) {
    list.appendMarkdown('\n- **').appendText(visible(s.name)).appendMarkdown('**: ').appendText(visible(currentName(s)));
    if (s.description) list.appendMarkdown(' — ').appendText(visible(s.description));
  }
  stream.markdown(list.appendMarkdown('\n'));
  for (const s of settings) {
    stream.button({ command: CHANGE_SETTING_COMMAND, title: visible(`Change ${s.name}`), arguments: [{ sessionId, id: s.id } satisfies ChangeSettingArgs] });
  }
}

/** Asks for a setting's new value (a quick pick) and sets it. */
export async function changeSetting(acp: AcpClient, args: ChangeSettingArgs): Promise<void> {
  try {
    const s = settingsOf(acp, args.sessionId).find((x) => x.id === args.id);
    if (!s) {
      void vscode.window.showErrorMessage(visible(`parley: the agent no longer offers the setting ${args.id}.`));
      return;
    }
    const items =
      s.kind === 'boolean'
        ? [{ label: 'On', value: 'true' }, { label: 'Off', value: 'false' }]
        : (s.values ?? []).map((v) => ({ label: visible(v.name || v.id), description: v.group === undefined ? undefined : visible(v.group), detail: v.description === undefined ? undefined : visible(v.description), value: v.id }));
    const pick = await vscode.window.showQuickPick(
      items.map((i) => ({ ...i, picked: i.value === s.current })),
      { title: visible(`${s.name} (now ${currentName(s)})`), placeHolder: s.description === undefined ? undefined : visible(s.description), ignoreFocusOut: true },
    );
    if (!pick) return;
    const now = (await set(acp, args.sessionId, s, s.id, pick.value)).find((x) => x.id === s.id);
    void vscode.window.showInformationMessage(visible(`parley: ${s.name} is now ${now ? currentName(now) : pick.label}.`));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    void vscode.window.showErrorMessage(visible(`parley: ${message}`));
  }
}
