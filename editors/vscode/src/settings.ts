// The agent's settings (ACP session config options: model, mode, thought level, its own)
// in @parley: `@parley /config` lists them with a button to change each (a quick pick of
// its values), and `@parley /config ID VALUE` sets one. The backend checks the setting and
// the value against what the agent offers.

import * as vscode from 'vscode';
import { BackendError, type Backend } from './backend';
import type { Setting, SettingsResult } from './wire';
import { visible } from './visible';

export const CHANGE_SETTING_COMMAND = 'parley.changeSetting';

/** What a setting's button asks for. */
export interface ChangeSettingArgs {
  conversationId: string;
  id: string;
}

/** A setting's current value, in words. */
export function currentName(s: Setting): string {
  if (s.kind === 'boolean') return s.current === 'true' ? 'on' : 'off';
  return s.values?.find((v) => v.id === s.current)?.name || s.current;
}

/** Lists the settings in the chat, each with its button; or sets one when args name it. */
export async function config(backend: Backend, conversationId: string, args: string, stream: vscode.ChatResponseStream): Promise<void> {
  const [id, ...rest] = args.trim().split(/\s+/).filter(Boolean);
  if (id) {
    const value = rest.join(' ');
    if (!value) {
      stream.markdown(new vscode.MarkdownString('Give the value too: `/config ').appendText(visible(id)).appendMarkdown(' VALUE`.'));
      return;
    }
    const res = await backend.request<SettingsResult>('lm/setConfig', { conversationId, id, value });
    const s = res.settings.find((x) => x.id === id);
    stream.markdown(new vscode.MarkdownString().appendText(visible(`${s?.name ?? id} is now ${s ? currentName(s) : value}.`)));
    return;
  }
  const { settings } = await backend.request<SettingsResult>('lm/settings', { conversationId });
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
    stream.button({ command: CHANGE_SETTING_COMMAND, title: visible(`Change ${s.name}`), arguments: [{ conversationId, id: s.id } satisfies ChangeSettingArgs] });
  }
}

/** Asks for a setting's new value (a quick pick) and sets it. */
export async function changeSetting(backend: Backend, args: ChangeSettingArgs): Promise<void> {
  try {
    const { settings } = await backend.request<SettingsResult>('lm/settings', { conversationId: args.conversationId });
    const s = settings.find((x) => x.id === args.id);
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
    const res = await backend.request<SettingsResult>('lm/setConfig', { conversationId: args.conversationId, id: s.id, value: pick.value });
    const now = res.settings.find((x) => x.id === s.id);
    void vscode.window.showInformationMessage(visible(`parley: ${s.name} is now ${now ? currentName(now) : pick.label}.`));
  } catch (err) {
    const message = err instanceof BackendError || err instanceof Error ? err.message : String(err);
    void vscode.window.showErrorMessage(visible(`parley: ${message}`));
  }
}
