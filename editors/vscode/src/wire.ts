// The wire protocol of `parley vscodelm` (see the Go package internal/vscodelm, wire.go):
// JSON-RPC 2.0, one JSON object per line, on the backend's stdin and stdout. These types
// describe what crosses the wire; they hold no logic.

/** A part of a message in the history, or of a streamed response. */
export type WirePart =
  | { type: 'text'; value: string }
  | { type: 'tool_call'; toolCallId: string; toolName: string; parameters: unknown }
  | { type: 'tool_result'; toolCallId: string; result: unknown };

/**
 * Parts the backend streams only to a client that declared it renders them
 * (`capabilities.parts`); display only, never sent back in the history.
 */
export type DisplayPart =
  | { type: 'thinking'; value: string }
  | ({ type: 'tool_invocation' } & ToolInvocation);

export type StreamedPart = WirePart | DisplayPart;

export interface WireMessage {
  role: 'user' | 'assistant';
  content: WirePart[];
}

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: unknown;
}

/**
 * params.agent: how the backend starts the agent. The flat stdio shape, or a shape the
 * backend gave in its model list (sent back as it came).
 */
export type AgentDefinition = Record<string, unknown>;

export interface ChatRequestParams {
  modelId: string;
  messages: WireMessage[];
  agent: AgentDefinition;
  options: { tools?: ToolDefinition[]; toolMode?: 'auto' | 'required' };
  cwd?: string;
  additionalDirectories?: string[];
  capabilities?: { parts: string[]; notifications?: readonly string[] };
}

/** One model of lm/provideLanguageModelChatInformation: one agent the backend knows. */
export interface ModelInfo {
  id: string;
  name: string;
  family: string;
  version: string;
  maxInputTokens: number;
  maxOutputTokens: number;
  capabilities: { toolCalling?: boolean | number; imageInput?: boolean };
  /** Shown beside the name in the picker, when the backend gives it. */
  detail?: string;
  tooltip?: string;
  /** The definition to send back as params.agent, when the backend gives it. */
  agent?: AgentDefinition;
}

/** The result of lm/provideLanguageModelChatInformation. */
export interface ModelInfoResult {
  models: ModelInfo[];
  /**
   * The backend answers a result of the agent-action tool other than the approval with
   * the agent's reject_once option, so VS Code's result of a skipped confirmation may be
   * sent as it is. Absent: the backend took any result as the approval.
   */
  agentActionRefusals?: boolean;
}

/** params of the notification lm/prepareSession: the model the user chose last in the workspace. */
export interface PrepareSessionParams {
  modelId: string;
  agent: AgentDefinition;
  cwd?: string;
  additionalDirectories?: string[];
}

/** The states of one agent tool call, as VS Code's chat shows them. */
export type ToolInvocationState = 'streaming' | 'waiting_for_confirmation' | 'executing' | 'completed' | 'cancelled';

/**
 * The whole current state of one of the agent's own tool calls (toolui's JSON tool-call
 * event): each tool_invocation part replaces the previous one with the same toolCallId.
 */
export interface ToolInvocation {
  toolCallId: string;
  state: ToolInvocationState;
  isError?: boolean;
  title?: string;
  toolName?: string;
  kind?: string;
  invocationMessage?: string;
  pastTenseMessage?: string;
  errorMessage?: string;
  terminalCommand?: string;
  diffs?: Array<{ path: string; added: number; removed: number; new?: boolean }>;
  locations?: Array<{ path: string; line?: number }>;
  /** The call's output as text. */
  content?: string;
  parentId?: string;
  presentation?: 'hidden' | 'hiddenAfterComplete';
  confirmation?: unknown;
}

/** The input of the parley-agent-action tool: an agent's permission request. */
export interface AgentActionInput {
  title?: string | null;
  kind?: string | null;
  raw_input?: unknown;
}

/** JSON-RPC error codes the client acts on. */
export const ErrorCodes = {
  requestCancelled: -32800,
  agentFailure: -32000,
  methodNotFound: -32601,
  invalidParams: -32602,
} as const;

/** The agent-action tool's name; the backend recognises it in options.tools. */
export const AGENT_ACTION_TOOL = 'parley-agent-action';

// ---- parley's additions for a client that shows more than a model's reply (@parley) ----
// (internal/vscodelm/wire_features.go). The client declares the notifications it handles
// in capabilities.notifications; each names its chat request (requestId) and comes before
// lm/responseComplete.

/** The notifications @parley handles. */
export const PARTICIPANT_NOTIFICATIONS = ['lm/conversation', 'lm/usage', 'lm/changes', 'lm/elicitation', 'lm/signInRequired'] as const;

/** lm/conversation: the conversation (its id names it in the requests below) a request continues. */
export interface ConversationNote {
  requestId: number;
  conversationId: string;
}

/** lm/usage: the agent's usage after a turn, each as the agent gave it. */
export interface UsageNote {
  requestId: number;
  conversationId: string;
  /** The context window's use and the cost so far (ACP usage_update). */
  usage?: { used: number; size: number; cost?: { amount: number; currency: string } };
  /** The turn's own usage (the prompt response's). */
  turn?: { totalTokens: number; inputTokens: number; outputTokens: number; thoughtTokens?: number; cachedReadTokens?: number; cachedWriteTokens?: number };
}

/** A file a turn created (A), changed (M) or deleted (D). */
export interface ChangedFile {
  path: string;
  rel: string;
  kind: 'A' | 'M' | 'D';
  added: number;
  removed: number;
  status: 'pending' | 'undone' | 'kept' | 'expired';
  undoable: boolean;
  note?: string;
  /** How the change makes git run a program (a hook, core.fsmonitor...), when it does. */
  runsCode?: string;
  /** The permission bits before and after, when the turn changed them ("644 → 755"). */
  mode?: string;
}

/** One turn of the record of changes: a turn that changed files, or an undo. */
export interface ChangedTurn {
  number: number;
  label: string;
  undo?: boolean;
  files: ChangedFile[];
}

/** lm/changes: a turn changed files. */
export interface ChangesNote {
  requestId: number;
  conversationId: string;
  turn: ChangedTurn;
}

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

/** What the agent asks: a form, or a web page to open. */
export interface Elicitation {
  id: number;
  agent: string;
  message: string;
  mode: 'form' | 'url';
  title?: string;
  description?: string;
  fields?: ElicitationField[];
  answerable: boolean;
  /** Always an http or https page: parley declines any other address before it asks. */
  url?: { url: string; host: string; punycode?: boolean };
}

/** lm/elicitation: the agent asks the user something; answer with lm/answerElicitation. */
export interface ElicitationNote {
  requestId: number;
  conversationId: string;
  elicitation: Elicitation;
}

export interface AnswerElicitationParams {
  conversationId: string;
  id: number;
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** A way to sign in, with the parley command (its arguments) that does it. */
export interface SignInMethod {
  id: string;
  name: string;
  description?: string;
  kind: 'agent' | 'terminal' | 'env_var';
  vars?: string[];
  command: string[];
  /** what signing in with it does (a terminal method: the whole command line it runs) */
  effect?: string;
  /** why parley will not sign in with it (a variable that makes programs run code) */
  refused?: string;
}

/** lm/signInRequired: the agent needs the user to sign in before it answers. */
export interface SignInNote {
  requestId: number;
  agent: string;
  modelId: string;
  methods: SignInMethod[];
}

/** params of the notification lm/signedIn: the next conversation with the agent starts a new process. */
export interface SignedInParams {
  modelId: string;
  agent: AgentDefinition;
}

/** One setting of the session (lm/settings, lm/setConfig). */
export interface Setting {
  id: string;
  name: string;
  description?: string;
  category?: string;
  kind: 'select' | 'boolean';
  current: string;
  values?: Array<{ id: string; name: string; description?: string; group?: string }>;
}

export interface SettingsResult {
  settings: Setting[];
}

/** The result of lm/diff: the unified diff and the two texts (null: none, or not kept). */
export interface DiffResult {
  path: string;
  rel: string;
  turn: number;
  kind: string;
  unified: string;
  note?: string;
  changedSince?: boolean;
  before: string | null;
  after: string | null;
}

/** The result of lm/undo. */
export interface UndoResult {
  turns: number[];
  files: Array<{ path: string; rel: string; did: string }>;
  record?: ChangedTurn;
}

/** A file an undo would not touch, and why (the data of a conflict error). */
export interface Conflict {
  path: string;
  rel: string;
  turn: number;
  reason: string;
  since?: boolean;
}

/** lm/undo's error when a file changed since the turn: nothing was undone. */
export const CONFLICT = -32001;
