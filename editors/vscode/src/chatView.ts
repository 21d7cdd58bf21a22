// parley's own chat in VS Code: the web chat's page (built from web/ in the repository,
// copied into media/web by `npm run compile`) in a webview, as an editor panel ("parley:
// Open Chat") and as a view in the secondary side bar. Each webview talks to a `parley
// acp` process of its own, which the extension runs: the page's JSON-RPC messages are
// relayed, one per postMessage, to the process's stdin and its stdout lines back. No
// port is opened. It needs neither VS Code's chat nor a Copilot sign-in, so it works in
// every editor built on VS Code, code-server included.
//
// The page asks the extension to open a file (a mention, a changed file) or a diff; only
// files inside the workspace's folders are opened.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { acpArgs, acpEnv } from './acpClient';
import type { AgentServers } from './models';
import { ParleyProcess } from './parleyProcess';

export const CHAT_VIEW = 'parley.chat';
const DIFF_SCHEME = 'parley-diff';

export interface ChatOptions {
  extensionUri: vscode.Uri;
  locate: () => Promise<string>;
  globalArgs: () => string[];
  agent: () => string;
  agentServers: () => AgentServers;
  log: vscode.OutputChannel;
}

export class ChatWebviews implements vscode.WebviewViewProvider, vscode.TextDocumentContentProvider {
  private texts = new Map<string, string>(); // parley-diff:/N → the text of one side
  private nextText = 1;
  private relays = new Set<Relay>();

  constructor(private opts: ChatOptions) {}

  // register uses each API only where the editor has it (webviews are everywhere VS
  // Code is, but not in every host the extension is tested or run in).
  register(context: vscode.ExtensionContext): void {
    const w = vscode.window as Partial<typeof vscode.window>;
    const ws = vscode.workspace as Partial<typeof vscode.workspace>;
    if (typeof w.registerWebviewViewProvider === 'function') {
      context.subscriptions.push(w.registerWebviewViewProvider(CHAT_VIEW, this, { webviewOptions: { retainContextWhenHidden: true } }));
    }
    if (typeof ws.registerTextDocumentContentProvider === 'function') {
      context.subscriptions.push(ws.registerTextDocumentContentProvider(DIFF_SCHEME, this));
    }
    if (typeof w.createWebviewPanel === 'function') {
      context.subscriptions.push(vscode.commands.registerCommand('parley.openChat', () => this.openPanel()));
    }
    context.subscriptions.push({ dispose: () => this.dispose() });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    view.onDidDispose(this.attach(view.webview));
  }

  openPanel(): vscode.WebviewPanel {
    const panel = vscode.window.createWebviewPanel('parley.chatPanel', 'parley', vscode.ViewColumn.Beside, { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [this.media()] });
    panel.onDidDispose(this.attach(panel.webview));
    return panel;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? '';
  }

  private media(): vscode.Uri {
    return vscode.Uri.joinPath(this.opts.extensionUri, 'media', 'web');
  }

  // attach shows the page in the webview and relays it to a parley process of its own;
  // it returns what to do when the webview goes away.
  private attach(webview: vscode.Webview): () => void {
    webview.options = { enableScripts: true, localResourceRoots: [this.media()] };
    webview.html = this.html(webview);
    const relay = new Relay(webview, this.opts, (m) => this.onPageMessage(m));
    this.relays.add(relay);
    void relay.start();
    return () => {
      this.relays.delete(relay);
      void relay.stop();
    };
  }

  private html(webview: vscode.Webview): string {
    const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.media(), name)).toString();
    const csp = [
      "default-src 'none'",
      `script-src ${webview.cspSource}`,
      `style-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data: blob:`,
      `font-src ${webview.cspSource}`,
    ].join('; ');
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>parley</title>
<link rel="stylesheet" href="${asset('style.css')}">
<script src="${asset('app.js')}" defer></script>
</head>
<body><div id="app"><p class="boot">parley is starting…</p></div></body>
</html>`;
  }

  private async onPageMessage(m: { type?: string; path?: unknown; line?: unknown; oldText?: unknown; newText?: unknown }): Promise<void> {
    if (typeof m.path !== 'string' || !inWorkspace(m.path)) {
      if (typeof m.path === 'string') this.opts.log.appendLine(`[chat] not opening ${m.path}: it is outside the workspace`);
      return;
    }
    const file = vscode.Uri.file(m.path);
    if (m.type === 'open') {
      const line = typeof m.line === 'number' && m.line > 0 ? m.line - 1 : 0;
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true, viewColumn: vscode.ViewColumn.One });
    } else if (m.type === 'diff') {
      const left = this.textUri(typeof m.oldText === 'string' ? m.oldText : '', m.path);
      const right = typeof m.newText === 'string' ? this.textUri(m.newText, m.path) : file;
      await vscode.commands.executeCommand('vscode.diff', left, right, `${path.basename(m.path)} (the agent's change)`);
    }
  }

  private textUri(text: string, file: string): vscode.Uri {
    const key = `/${this.nextText++}/${path.basename(file)}`;
    this.texts.set(key, text);
    return vscode.Uri.from({ scheme: DIFF_SCHEME, path: key });
  }

  dispose(): void {
    for (const r of this.relays) void r.stop();
    this.relays.clear();
  }
}

function inWorkspace(file: string): boolean {
  return (vscode.workspace.workspaceFolders ?? []).some((f) => {
    const rel = path.relative(f.uri.fsPath, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  });
}

// Relay runs `parley acp` for one webview and passes messages both ways.
class Relay {
  private proc: ParleyProcess | undefined;
  private stopped = false;

  constructor(private webview: vscode.Webview, private opts: ChatOptions, private onAction: (m: any) => void) {
    webview.onDidReceiveMessage((m) => {
      if (m?.type === 'acp' && typeof m.text === 'string') this.proc?.transport.send(m.text.replace(/\n/g, ' '));
      else if (m?.type === 'open' || m?.type === 'diff') this.onAction(m);
    });
  }

  async start(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!folder) return this.closed('Open a folder first: parley works in a workspace folder.');
    let proc: ParleyProcess;
    try {
      const bin = await this.opts.locate();
      if (this.stopped) return;
      proc = await ParleyProcess.start({ bin, args: acpArgs(this.opts.globalArgs(), folder, this.opts.agent()), env: acpEnv(process.env, this.opts.agentServers()), log: this.opts.log, stderrPrefix: '[chat] ', name: 'parley acp', tag: '[chat]' });
    } catch (err) {
      return this.closed(err instanceof Error ? err.message : String(err));
    }
    this.proc = proc;
    if (this.stopped) return void proc.stop('the chat was closed', 2000);
    proc.transport.onMessage((line) => void this.webview.postMessage({ type: 'acp', text: line }));
    proc.transport.onClose(() => this.closed(`${proc.endedMessage()} (see "parley: Show log")`));
  }

  private closed(reason: string): void {
    if (!this.stopped) void this.webview.postMessage({ type: 'acp-closed', reason });
  }

  // stop closes parley's stdin (it ends its agents and exits), then signals its process
  // group if it has not gone within a grace.
  async stop(): Promise<void> {
    this.stopped = true;
    await this.proc?.stop('the chat was closed', 2000);
  }
}
