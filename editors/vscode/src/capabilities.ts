// Which of VS Code's extension APIs this editor has. Editors built on VS Code do not all
// have the language model provider API (vscode.lm.registerLanguageModelChatProvider), the
// tool API or the chat participant API; the extension registers only with those that
// exist, and says in its log what is missing and what that means.

import * as vscode from 'vscode';

/** The proposed API that the proposed flavour of the extension declares (render.ts uses it). */
export const PROPOSED_CHAT_API = 'chatParticipantAdditions';

export interface EditorApis {
  /** parley's agents as models in the model picker and for vscode.lm users. */
  languageModelProvider: boolean;
  /** The agent-action tool, through which the agent's permission requests are confirmed. */
  tools: boolean;
  /** The @parley participant. */
  chatParticipant: boolean;
  /** What is missing, and what that means for the user. */
  missing: Array<{ api: string; consequence: string }>;
}

function isFunction(obj: unknown, key: string): boolean {
  return typeof (obj as Record<string, unknown> | undefined)?.[key] === 'function';
}

export function editorApis(api: typeof vscode = vscode): EditorApis {
  const lm = (api as { lm?: unknown }).lm;
  const chat = (api as { chat?: unknown }).chat;
  const apis: EditorApis = {
    languageModelProvider: isFunction(lm, 'registerLanguageModelChatProvider'),
    tools: isFunction(lm, 'registerTool') && isFunction(lm, 'invokeTool'),
    chatParticipant: isFunction(chat, 'createChatParticipant'),
    missing: [],
  };
  if (!apis.languageModelProvider) {
    apis.missing.push({ api: 'language model provider API (vscode.lm.registerLanguageModelChatProvider)', consequence: "parley's agents are not offered as models; @parley and \"parley: Chat in a terminal\" still reach them" });
  }
  if (!apis.tools) {
    apis.missing.push({ api: 'language model tool API (vscode.lm.registerTool, invokeTool)', consequence: "@parley asks before an agent acts in a dialog instead of in the chat, and cannot pass VS Code's tools to agents" });
  }
  if (!apis.chatParticipant) {
    apis.missing.push({ api: 'chat participant API (vscode.chat.createChatParticipant)', consequence: 'there is no @parley; "parley: Chat in a terminal" talks to the agents' });
  }
  return apis;
}

/**
 * Opens an integrated terminal running `parley chat` with agent, in cwd: the way to talk
 * to parley's agents that works in any editor, whatever chat API it has.
 */
export function openTerminalChat(bin: string, agent: string, cwd: string | undefined): vscode.Terminal {
  const terminal = vscode.window.createTerminal({ name: `parley chat (${agent})`, shellPath: bin, shellArgs: ['chat', '--agent', agent], cwd });
  terminal.show();
  return terminal;
}
