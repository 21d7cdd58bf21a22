// The models VS Code offers for the parley vendor: one per agent the backend knows.
//
// The backend resolves the agents (the built-in ones that can run here, the user's config
// file, the settings' agentServers it is given) and says how to start each one
// (ModelInfo.agent), which the extension sends back with every chat request. The
// extension shows exactly what the backend lists; a model without a definition (a parley
// older than this extension) is left out, and the log says to update parley.

import type { Backend, CancelToken } from './backend';
import type { AgentDefinition, ModelInfo, ModelInfoResult } from './wire';
import { visible } from './visible';

/** One entry of the agent_servers shape: how to start an agent. */
export interface AgentServer {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

export type AgentServers = Record<string, AgentServer>;

/** A model as VS Code sees it, with the agent definition to send back. */
export interface ParleyModel {
  readonly id: string;
  readonly name: string;
  readonly family: string;
  readonly version: string;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  readonly detail?: string;
  readonly tooltip?: string;
  readonly capabilities: { readonly toolCalling?: boolean | number; readonly imageInput?: boolean };
  readonly agent: AgentDefinition;
}

/** Returns the checked entries of the agentServers setting, and a note for each bad one. */
export function checkAgentServers(value: unknown): { servers: AgentServers; problems: string[] } {
  const servers: AgentServers = {};
  const problems: string[] = [];
  if (value === undefined || value === null) return { servers, problems };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { servers, problems: ['parley.agentServers must be an object: {"name": {"command": …, "args": […], "env": {…}}}'] };
  }
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const s = raw as Partial<AgentServer> | null;
    const argsOk = s?.args === undefined || (Array.isArray(s.args) && s.args.every((a) => typeof a === 'string'));
    const envOk = s?.env === undefined || (typeof s.env === 'object' && s.env !== null && Object.values(s.env).every((v) => typeof v === 'string'));
    if (!s || typeof s.command !== 'string' || !s.command || !argsOk || !envOk) {
      problems.push(`parley.agentServers.${name}: needs a "command" string, "args" as a list of strings and "env" as an object of strings`);
      continue;
    }
    servers[name] = { command: s.command, args: s.args, env: s.env };
  }
  return { servers, problems };
}

/** What a listing needs: the backend, the settings' agents, the workspace folders. */
export interface ModelContext {
  backend: Backend;
  agentServers: AgentServers;
  /** The workspace folders: the agent's cwd and further roots, where a spare session opens. */
  workspace(): { cwd?: string; additionalDirectories?: string[] };
}

/** The backend's answer to a listing, as the extension uses it. */
export interface Listing {
  models: ParleyModel[];
  /** Models left out: the backend did not say how to start them. */
  unresolved: string[];
  /**
   * The backend answers a result of the agent-action tool other than its approval with
   * the agent's reject_once option (ModelInfoResult.agentActionRefusals); an older one
   * took any result as the approval.
   */
  refusesUnapproved: boolean;
}

function toModel(info: ModelInfo, agent: AgentDefinition): ParleyModel {
  return {
    id: info.id,
    name: visible(info.name), // the picker shows them: made visible (visible.ts)
    family: info.family || 'parley',
    version: info.version || '1',
    maxInputTokens: info.maxInputTokens,
    maxOutputTokens: info.maxOutputTokens,
    detail: info.detail === undefined ? undefined : visible(info.detail),
    tooltip: info.tooltip === undefined ? undefined : visible(info.tooltip),
    capabilities: { toolCalling: info.capabilities?.toolCalling ?? true, imageInput: info.capabilities?.imageInput ?? false },
    agent,
  };
}

/** Asks the backend for its models, with the settings' agents and the workspace folders. */
export async function listModels(ctx: ModelContext, silent: boolean, token?: CancelToken): Promise<Listing> {
  const res = await ctx.backend.request<ModelInfoResult>(
    'lm/provideLanguageModelChatInformation',
    { silent, agentServers: ctx.agentServers, ...ctx.workspace() },
    { token },
  );
  const models: ParleyModel[] = [];
  const unresolved: string[] = [];
  for (const info of res?.models ?? []) {
    if (info.agent) models.push(toModel(info, info.agent));
    else unresolved.push(info.id);
  }
  return { models, unresolved, refusesUnapproved: res?.agentActionRefusals === true };
}
