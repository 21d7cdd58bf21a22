// The shapes of ACP that the extension reads, as far as it reads them. parley's own
// (_parley/* and _meta.parley) are in parleyapi.ts, generated from their Go definitions.

import type { ToolCallMeta } from './parleyapi';

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
  /** parley's words for the call (ToolCallMeta), as it relays each update. */
  _meta?: { parley?: ToolCallMeta; [k: string]: unknown } | null;
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
