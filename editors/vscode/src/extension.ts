// The extension's entry point: wires the backend (`parley vscodelm`, for the model
// provider), the window's `parley acp` (for @parley and its buttons), the agent-action
// tool, the @parley participant, the commands and the settings together.
//
// Each of VS Code's APIs the extension registers with is used only where the editor has
// it: editors built on VS Code may lack the language-model provider API (then there are
// no parley models, but @parley works), the tool API or the chat API. The proposed chat
// API is used only by the flavour of the extension that declares it (see
// scripts/package.js): the published one shows everything through stable APIs.

import * as vscode from 'vscode';
import { AgentActionTool } from './agentAction';
import { AcpClient } from './acpClient';
import { Backend } from './backend';
import { workspaceRoots } from './convert';
import { findParley, INSTALL_COMMAND, ParleyNotFoundError, type FoundParley } from './locate';
import { checkAgentServers, type ModelContext, type ParleyModel } from './models';
import { registerChatCommands } from './chatCommands';
import { PARTICIPANT_ID, ParleyParticipant } from './participant';
import { ParleyChatProvider } from './provider';
import { AGENT_ACTION_TOOL, type PrepareSessionParams, type ToolDefinition } from './wire';
import { editorApis, openTerminalChat, PROPOSED_CHAT_API } from './capabilities';
import { VersionChecker } from './versionCheck';
import { ChatWebviews } from './chatView';

const LAST_MODEL_KEY = 'parley.lastModel';

let backend: Backend | undefined;
let acp: AcpClient | undefined;

function config() {
  return vscode.workspace.getConfiguration('parley');
}

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('parley');
  context.subscriptions.push(log);

  const apis = editorApis();
  const extensionVersion = String(context.extension.packageJSON?.version ?? '');
  const declaresProposed = ((context.extension.packageJSON?.enabledApiProposals ?? []) as string[]).includes(PROPOSED_CHAT_API);
  const find = () => findParley(config().get<string>('path', '')?.trim() ?? '', process.env, context.extensionPath);
  const versions = new VersionChecker({
    extensionVersion,
    log,
    warn: (message, ...actions) => vscode.window.showWarningMessage(message, ...actions),
    copy: (text) => vscode.env.clipboard.writeText(text),
    openSettings: () => vscode.commands.executeCommand('workbench.action.openSettings', 'parley.path'),
  });
  // Each start of the backend finds parley again (the setting may have changed) and
  // checks, once per binary, that its version is the extension's.
  const locate = async (): Promise<string> => {
    const found: FoundParley = await find();
    void versions.check(found);
    return found.path;
  };
  backend = new Backend({
    locate,
    globalArgs: () => {
      const args = ['--log', config().get<string>('logLevel', 'warn') ?? 'warn'];
      const trace = config().get<string>('traceDir', '')?.trim();
      return trace ? [...args, '--trace-dir', trace] : args;
    },
    log,
    stopGraceMs: 1500, // VS Code gives deactivate a few seconds
  });
  const be = backend;
  const agentServers = () => {
    const { servers, problems } = checkAgentServers(config().get<unknown>('agentServers'));
    for (const p of problems) log.appendLine(`[client] ${p}`);
    return servers;
  };
  // @parley, its review, settings, sign-in and questions: ACP to one parley acp for the
  // window, in the first workspace folder (as the chat webviews run theirs).
  acp = new AcpClient({
    locate,
    globalArgs: () => ['--log', config().get<string>('logLevel', 'warn') ?? 'warn'],
    folder: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? workspaceRoots().cwd,
    defaultAgent: () => config().get<string>('chat.agent', 'eliza') || 'eliza',
    agentServers,
    log,
    stopGraceMs: 1500,
  });
  const client = acp;

  // parley's own chat (the web chat's page in a webview), which needs none of VS Code's
  // chat APIs: each webview runs its own `parley acp`.
  new ChatWebviews({
    extensionUri: context.extensionUri,
    locate,
    globalArgs: () => ['--log', config().get<string>('logLevel', 'warn') ?? 'warn'],
    agent: () => config().get<string>('chat.agent', 'eliza') || 'eliza',
    agentServers,
    log,
  }).register(context);

  const modelContext = (): ModelContext => ({ backend: be, agentServers: agentServers(), workspace: workspaceRoots });

  const shown = new Set<string>();
  const reportStartFailure = (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    if (shown.has(message)) return;
    shown.add(message);
    const actions = err instanceof ParleyNotFoundError ? ['Copy Install Command', 'Open Settings'] : ['Show Log'];
    void vscode.window.showErrorMessage(message, ...actions).then((choice) => {
      if (choice === 'Copy Install Command') void vscode.env.clipboard.writeText(INSTALL_COMMAND);
      if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'parley.path');
      if (choice === 'Show Log') log.show(true);
    });
  };

  // The model the user chose last in this workspace (remembered across restarts) is the
  // agent they will most likely want next: once the models are listed, the backend is
  // asked to get a session of it ready (lm/prepareSession), so that the first request
  // does not wait for the agent to start. VS Code lists the models often: ask once per
  // backend process, agent and workspace.
  let prepared = '';
  be.onDidStart(() => (prepared = ''));
  const onChosen = (id: string) => void context.workspaceState.update(LAST_MODEL_KEY, id);
  const onListed = (models: ParleyModel[]) => {
    const last = models.find((m) => m.id === context.workspaceState.get<string>(LAST_MODEL_KEY));
    if (!last) return;
    const params: PrepareSessionParams = { modelId: last.id, agent: last.agent, ...workspaceRoots() };
    const key = JSON.stringify(params);
    if (key === prepared) return;
    prepared = key;
    be.notify('lm/prepareSession', params);
  };

  const provider = new ParleyChatProvider({ models: modelContext, log, reportStartFailure, onChosen: (m) => onChosen(m.id), onListed });
  context.subscriptions.push(provider);
  if (apis.languageModelProvider) context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider('parley', provider));
  if (apis.tools) context.subscriptions.push(vscode.lm.registerTool(AGENT_ACTION_TOOL, new AgentActionTool()));
  for (const missing of apis.missing) log.appendLine(`[client] this editor has no ${missing.api}: ${missing.consequence}`);

  const participant = new ParleyParticipant({
    acp: client,
    log,
    defaultAgent: () => config().get<string>('chat.agent', 'eliza') || 'eliza',
    agentActionTool: () => agentActionDefinition(context),
    useProposedApi: () => declaresProposed && (config().get<boolean>('chat.toolInvocationParts', true) ?? true),
    onChosen,
  });
  context.subscriptions.push(...registerChatCommands({ acp: client, log, parleyPath: async () => (await find()).path }));
  if (apis.chatParticipant) {
    const chat = vscode.chat.createChatParticipant(PARTICIPANT_ID, participant.handler);
    chat.iconPath = new vscode.ThemeIcon('comment-discussion');
    context.subscriptions.push(chat);
  }
  if (!apis.chatParticipant && !apis.languageModelProvider) {
    // Nothing of parley shows in this editor's UI: say what works instead, once.
    void vscode.window
      .showInformationMessage('This editor has neither VS Code\'s chat nor its language model API, so parley\'s agents cannot appear in a chat here. "parley: Chat in a terminal" talks to them in a terminal.', 'Chat in a Terminal')
      .then((choice) => choice && vscode.commands.executeCommand('parley.chatInTerminal'));
  }

  context.subscriptions.push(
    vscode.commands.registerCommand('parley.restartBackend', async () => {
      log.appendLine('[client] restarting the backend');
      try {
        await Promise.all([be.restart(), client.restart()]);
        provider.refresh();
      } catch (err) {
        reportStartFailure(err);
      }
    }),
    vscode.commands.registerCommand('parley.showLog', () => log.show(true)),
    vscode.commands.registerCommand('parley.chatInTerminal', async () => {
      try {
        const found = await find();
        void versions.check(found);
        openTerminalChat(found.path, config().get<string>('chat.agent', 'eliza') || 'eliza', workspaceRoots().cwd);
      } catch (err) {
        reportStartFailure(err);
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('parley')) return;
      shown.clear();
      if (['parley.path', 'parley.logLevel', 'parley.traceDir'].some((s) => e.affectsConfiguration(s))) {
        void be.restart().catch((err) => log.appendLine(`[client] ${err instanceof Error ? err.message : String(err)}`));
        void client.restart();
      } else if (e.affectsConfiguration('parley.agentServers')) {
        // parley acp learns the setting's agents when it starts: the next message
        // starts it again with the new ones.
        void client.restart();
      }
      provider.refresh();
    }),
  );
}

/** The agent-action tool as package.json contributes it, for requests the participant sends. */
function agentActionDefinition(context: vscode.ExtensionContext): ToolDefinition {
  const tools = (context.extension.packageJSON?.contributes?.languageModelTools ?? []) as Array<{ name: string; modelDescription?: string; inputSchema?: unknown }>;
  const t = tools.find((x) => x.name === AGENT_ACTION_TOOL);
  return { name: AGENT_ACTION_TOOL, description: t?.modelDescription ?? '', inputSchema: t?.inputSchema ?? {} };
}

export async function deactivate(): Promise<void> {
  const b = backend;
  const a = acp;
  backend = undefined;
  acp = undefined;
  await Promise.all([b?.dispose(), a?.dispose()]);
}
