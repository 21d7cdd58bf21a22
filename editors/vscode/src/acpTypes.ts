// The shapes of ACP and of parley's _parley/* that the extension reads, as far as it reads
// them. Declared here until parleyapi.ts (generated from the Go definitions) lands; then
// this file goes and its users import from there.

export type SessionId = string;

export interface ContentBlock {
  type: string;
  text?: string;
}

export interface ToolCallContent {
  type: 'content' | 'diff' | 'terminal';
  content?: ContentBlock;
  path?: string;
  oldText?: string | null;
  newText?: string;
  terminalId?: string;
}

/** A tool_call (all of it) or a tool_call_update (the fields that changed). */
export interface ToolCallFields {
  toolCallId: string;
  title?: string | null;
  kind?: string | null;
  status?: 'pending' | 'in_progress' | 'completed' | 'failed' | null;
  content?: ToolCallContent[] | null;
  locations?: Array<{ path: string; line?: number | null }> | null;
  rawInput?: unknown;
  rawOutput?: unknown;
}

export interface PlanEntry {
  content: string;
  priority?: string;
  status: 'pending' | 'in_progress' | 'completed';
}

export interface ConfigOptionValue {
  value: string;
  name: string;
  description?: string | null;
  group?: string;
}

/** A session config option (ACP's SessionConfigOption): a select or a boolean. */
export interface ConfigOption {
  id: string;
  name: string;
  description?: string | null;
  category?: string | null;
  type: 'select' | 'boolean';
  currentValue: string | boolean;
  options?: Array<ConfigOptionValue | { group: string; name: string; options: ConfigOptionValue[] }>;
}

export type SessionUpdate =
  | { sessionUpdate: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk'; content: ContentBlock }
  | ({ sessionUpdate: 'tool_call' | 'tool_call_update' } & ToolCallFields)
  | { sessionUpdate: 'plan'; entries: PlanEntry[] }
  | { sessionUpdate: 'usage_update'; used: number; size: number; cost?: { amount: number; currency: string } | null }
  | { sessionUpdate: 'config_option_update'; configOptions: ConfigOption[] }
  | { sessionUpdate: string; [k: string]: unknown };

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
}

export interface RequestPermissionParams {
  sessionId: SessionId;
  toolCall: ToolCallFields;
  options: PermissionOption[];
}

export type PermissionOutcome = { outcome: { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' } };

/** elicitation/create as parley acp sends it (a form's field order in _meta.parley.order). */
export interface ElicitationParams {
  sessionId: SessionId;
  mode: 'form' | 'url';
  message: string;
  url?: string;
  requestedSchema?: { properties?: Record<string, JsonSchemaField>; required?: string[] };
  _meta?: { parley?: { order?: string[] } };
}

export interface JsonSchemaField {
  type?: string;
  title?: string;
  description?: string;
  enum?: string[];
  enumNames?: string[];
  oneOf?: Array<{ const: string; title?: string }>;
  items?: { enum?: string[]; anyOf?: Array<{ const: string; title?: string }> };
  default?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export interface NewSessionResult {
  sessionId: SessionId;
  configOptions?: ConfigOption[] | null;
}

export interface PromptResult {
  stopReason: string;
  usage?: { inputTokens: number; outputTokens: number } | null;
}

/** A file of _parley/changes (a turn's notification, or every turn's on request). */
export interface ChangeEntry {
  path: string;
  rel: string;
  kind: string;
  added: number;
  removed: number;
  status: string;
  undoable: boolean;
  runsCode?: string;
  mode?: string;
  note?: string;
}

export interface TurnChanges {
  sessionId: SessionId;
  turn: number;
  label?: string;
  changes: ChangeEntry[];
  error?: string;
}

/**
 * _parley/diff's answer: vscodelm's shape (path, rel, turn, kind, unified, note,
 * changedSince, before, after), which acpserver is being moved to; old and new are the
 * names acpserver answers with until then.
 */
export interface DiffResult {
  path: string;
  rel?: string;
  turn: number;
  kind?: string;
  unified?: string;
  note?: string;
  changedSince?: boolean;
  before?: string | null;
  after?: string | null;
  old?: string | null;
  new?: string | null;
}

export interface UndoResult {
  turns: number[];
  files?: Array<{ path: string; rel: string; did: string }>;
}

/** The code of _parley/undo's refusal when a file changed since the turn (lm/undo's): nothing was undone. */
export const CONFLICT = -32001;

/** An undo refused: a file someone changed since the turn (the error's data). */
export interface UndoConflict {
  path: string;
  rel: string;
  turn: number;
  reason: string;
  since?: boolean;
}

export interface SignInMethod {
  id: string;
  name: string;
  description?: string;
  kind: 'agent' | 'terminal' | 'env_var';
  command?: string[];
  run?: string[];
  effect?: string;
  refused?: string;
  vars?: Array<{ name: string; label?: string; secret?: boolean; optional?: boolean }>;
  link?: string;
}

export interface SignInRequired {
  sessionId: SessionId;
  agent: string;
  during?: string;
  methods: SignInMethod[];
}

export interface AgentEntry {
  name: string;
  title?: string;
  default?: boolean;
}
