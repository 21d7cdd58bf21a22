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

/** The agent-action tool's name; the backend recognises it in options.tools. */
export const AGENT_ACTION_TOOL = 'parley-agent-action';
