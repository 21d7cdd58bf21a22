// A small stand-in for the `vscode` module: the classes, enums and namespaces the
// extension uses, with just enough behaviour for unit tests under plain Node. setup.ts
// makes require('vscode') return it. Tests reach the recorded state through `mock`.

export class LanguageModelTextPart {
  constructor(public value: string) {}
}
export class LanguageModelToolCallPart {
  constructor(public callId: string, public name: string, public input: object) {}
}
export class LanguageModelToolResultPart {
  constructor(public callId: string, public content: unknown[]) {}
}
export class LanguageModelPromptTsxPart {
  constructor(public value: unknown) {}
}
export class LanguageModelDataPart {
  constructor(public data: Uint8Array, public mimeType: string) {}
}
export class LanguageModelToolResult {
  constructor(public content: unknown[]) {}
}
export enum LanguageModelChatMessageRole {
  User = 1,
  Assistant = 2,
}
export enum LanguageModelChatToolMode {
  Auto = 1,
  Required = 2,
}
export class LanguageModelChatMessage {
  constructor(public role: LanguageModelChatMessageRole, public content: unknown[], public name: string | undefined = undefined) {}
  static User(content: string | unknown[]): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.User, typeof content === 'string' ? [new LanguageModelTextPart(content)] : content);
  }
  static Assistant(content: string | unknown[]): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.Assistant, typeof content === 'string' ? [new LanguageModelTextPart(content)] : content);
  }
}

export class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

type Listener<T> = (e: T) => unknown;
export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class CancellationTokenSource {
  private emitter = new EventEmitter<void>();
  token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {}
}

export class MarkdownString {
  value = '';
  isTrusted = false;
  supportHtml = false;
  constructor(value?: string) {
    this.value = value ?? '';
  }
  appendText(text: string): this {
    this.value += text.replace(/[\\`*_{}[\]()#+\-.!<>|~]/g, '\\$&');
    return this;
  }
  appendMarkdown(md: string): this {
    this.value += md;
    return this;
  }
  appendCodeblock(code: string, language = ''): this {
    this.value += '\n```' + language + '\n' + code + '\n```\n';
    return this;
  }
}

export class Uri {
  constructor(public scheme: string, public fsPath: string) {}
  get path(): string {
    return this.fsPath;
  }
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  static from(c: { scheme: string; path: string }): Uri {
    return new Uri(c.scheme, c.path);
  }
  static parse(s: string): Uri {
    const i = s.indexOf(':');
    return new Uri(s.slice(0, i), s.slice(i + 1));
  }
  toString(): string {
    return `${this.scheme}://${this.fsPath}`;
  }
}

export class ThemeIcon {
  constructor(public id: string) {}
}

export class ChatResponseMarkdownPart {
  value: MarkdownString;
  constructor(value: string | MarkdownString) {
    this.value = typeof value === 'string' ? new MarkdownString(value) : value;
  }
}

/** The proposed API's part; tests switch it off by deleting it from the module. */
export class ChatToolInvocationPart {
  invocationMessage?: string | MarkdownString;
  originMessage?: string | MarkdownString;
  pastTenseMessage?: string | MarkdownString;
  isConfirmed?: boolean;
  isComplete?: boolean;
  toolSpecificData?: unknown;
  subAgentInvocationId?: string;
  presentation?: 'hidden' | 'hiddenAfterComplete';
  constructor(public toolName: string, public toolCallId: string, public isError?: boolean) {}
}

export class ChatResponseThinkingProgressPart {
  constructor(public value: string | string[], public id?: string, public metadata?: unknown) {}
}

export enum ChatResultFeedbackKind {
  Unhelpful = 0,
  Helpful = 1,
}

export class ChatRequestTurn {
  constructor(public prompt: string, public command: string | undefined, public references: unknown[], public participant: string, public toolReferences: unknown[] = []) {}
}
export class ChatResponseTurn {
  constructor(public response: unknown[], public result: { metadata?: Record<string, unknown>; errorDetails?: unknown }, public participant: string, public command?: string) {}
}

/** The recorded state tests look at and set. */
export const mock = {
  configuration: {} as Record<string, unknown>,
  workspaceFolders: undefined as Array<{ uri: Uri; name: string; index: number }> | undefined,
  messages: [] as Array<{ kind: 'error' | 'warning' | 'info'; text: string }>,
  tools: new Map<string, unknown>(),
  /** What lm.invokeTool does; tests replace it. */
  invokeTool: async (_name: string, _options: unknown, _token?: unknown): Promise<LanguageModelToolResult> => {
    throw new Error('mock.invokeTool not set');
  },
  participants: new Map<string, { handler: Function }>(),
  providers: new Map<string, unknown>(),
  commands: new Map<string, Function>(),
  output: [] as string[],
  /** The button a shown message answers with (undefined: the message was closed); tests replace it. */
  answer: (_kind: 'error' | 'warning' | 'info', _text: string, _options: unknown, _items: string[]): string | undefined => undefined,
  /** The options of each message, in the order shown (e.g. {modal: true, detail}). */
  messageOptions: [] as unknown[],
  terminals: [] as Array<{ name?: string; shellPath?: string; shellArgs?: string[]; cwd?: string; shown: boolean; exitStatus?: { code: number | undefined } }>,
  /** Closes a terminal the extension created, with an exit status. */
  closeTerminal: (t: unknown) => closedTerminals.fire(t),
  /** What showQuickPick answers (undefined: dismissed); tests replace it. */
  quickPick: async (_items: unknown[], _options: unknown): Promise<unknown> => {
    throw new Error('mock.quickPick not set');
  },
  /** What showInputBox answers (undefined: dismissed); tests replace it. */
  inputBox: async (_options: { prompt?: string; password?: boolean; validateInput?(v: string): string | undefined }): Promise<string | undefined> => {
    throw new Error('mock.inputBox not set');
  },
  contentProviders: new Map<string, { provideTextDocumentContent(uri: Uri): string }>(),
  /** The commands executed, with their arguments, in order. */
  executed: [] as Array<{ id: string; args: unknown[] }>,
  opened: [] as string[],
};

const closedTerminals = new EventEmitter<unknown>();

export const workspace = {
  get workspaceFolders() {
    return mock.workspaceFolders;
  },
  getConfiguration(section?: string) {
    return {
      get<T>(key: string, def?: T): T | undefined {
        const full = section ? `${section}.${key}` : key;
        return (full in mock.configuration ? mock.configuration[full] : def) as T | undefined;
      },
    };
  },
  onDidChangeConfiguration: new EventEmitter<{ affectsConfiguration(s: string): boolean }>().event,
  registerTextDocumentContentProvider(scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }) {
    mock.contentProviders.set(scheme, provider);
    return { dispose: () => mock.contentProviders.delete(scheme) };
  },
  onDidChangeWorkspaceFolders: new EventEmitter<void>().event,
};

function record(kind: 'error' | 'warning' | 'info') {
  return async (text: string, ...rest: unknown[]) => {
    const options = rest.length > 0 && typeof rest[0] === 'object' && rest[0] !== null ? rest.shift() : undefined;
    mock.messages.push({ kind, text });
    mock.messageOptions.push(options);
    return mock.answer(kind, text, options, rest as string[]);
  };
}

export const window = {
  showErrorMessage: record('error'),
  showWarningMessage: record('warning'),
  showInformationMessage: record('info'),
  createTerminal(options: { name?: string; shellPath?: string; shellArgs?: string[]; cwd?: string }) {
    const t: (typeof mock.terminals)[number] & { show(): void; dispose(): void } = {
      ...options,
      shown: false,
      show: () => void (t.shown = true),
      dispose: () => undefined,
    };
    mock.terminals.push(t);
    return t;
  },
  onDidCloseTerminal: closedTerminals.event,
  showQuickPick: (items: unknown[], options: unknown) => mock.quickPick(items, options),
  showInputBox: (options: { prompt?: string }) => mock.inputBox(options),
  createOutputChannel(_name: string) {
    return {
      appendLine: (l: string) => mock.output.push(l),
      append: (l: string) => mock.output.push(l),
      show: () => undefined,
      dispose: () => undefined,
    };
  },
};

export const env = {
  clipboard: { writeText: async (_t: string) => undefined },
  openExternal: async (uri: Uri) => {
    mock.opened.push(uri.toString());
    return true;
  },
};

export const commands = {
  registerCommand(id: string, fn: Function) {
    mock.commands.set(id, fn);
    return { dispose: () => mock.commands.delete(id) };
  },
  executeCommand: async (id: string, ...args: unknown[]) => {
    mock.executed.push({ id, args });
    return mock.commands.get(id)?.(...args);
  },
};

export const lm = {
  registerTool(name: string, tool: unknown) {
    mock.tools.set(name, tool);
    return { dispose: () => mock.tools.delete(name) };
  },
  registerLanguageModelChatProvider(vendor: string, provider: unknown) {
    mock.providers.set(vendor, provider);
    return { dispose: () => mock.providers.delete(vendor) };
  },
  invokeTool: (name: string, options: unknown, token?: unknown) => mock.invokeTool(name, options, token),
  get tools() {
    return [...mock.tools.keys()].map((name) => ({ name, description: '', inputSchema: {} }));
  },
};

export const chat = {
  createChatParticipant(id: string, handler: Function) {
    const p = { id, handler, iconPath: undefined as unknown, dispose: () => mock.participants.delete(id) };
    mock.participants.set(id, p);
    return p;
  },
};
