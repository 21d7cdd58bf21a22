// The models VS Code offers for the parley vendor: one per agent the backend knows.
//
// The backend resolves agents (built-ins, npx fallbacks, the user's config file, the
// settings' agentServers it is given) and says how to start each one (ModelInfo.agent),
// which the extension sends back with every chat request. A backend from before that
// addition lists agents by name only: for it, the agents that need no resolution (the
// settings' own and parley's two subcommands) still work, and the others are left out.

import type { Backend, CancelToken } from './backend';
import type { AgentDefinition, ModelInfo } from './wire';

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

/** The flat stdio shape of params.agent. */
export function flatAgent(id: string, name: string, server: AgentServer): AgentDefinition {
  return {
    id,
    name,
    command: server.command,
    args: server.args ?? [],
    env: Object.entries(server.env ?? {}).map(([n, value]) => ({ name: n, value })),
  };
}

/** parley's own subcommands that serve as agents, for a backend that does not resolve agents. */
const SELF_AGENTS: Record<string, string[]> = { eliza: ['eliza'], parley: ['agent'] };

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

export interface ModelContext {
  backend: Backend;
  parleyPath(): Promise<string>;
  agentServers: AgentServers;
}

function toModel(info: ModelInfo, agent: AgentDefinition): ParleyModel {
  return {
    id: info.id,
    name: info.name,
    family: info.family || 'parley',
    version: info.version || '1',
    maxInputTokens: info.maxInputTokens,
    maxOutputTokens: info.maxOutputTokens,
    detail: info.detail,
    tooltip: info.tooltip,
    capabilities: { toolCalling: info.capabilities?.toolCalling ?? true, imageInput: info.capabilities?.imageInput ?? false },
    agent,
  };
}

/**
 * Asks the backend for its models and pairs each with the agent definition to send back.
 * Returns the models and the names of agents left out because this backend cannot say how
 * to start them.
 */
export async function listModels(ctx: ModelContext, silent: boolean, token?: CancelToken): Promise<{ models: ParleyModel[]; unresolved: string[] }> {
  const res = await ctx.backend.request<{ models?: ModelInfo[] }>(
    'lm/provideLanguageModelChatInformation',
    { silent, agentServers: ctx.agentServers },
    { token },
  );
  const infos = res?.models ?? [];
  const models: ParleyModel[] = [];
  const unresolved: string[] = [];
  const seen = new Set<string>();
  for (const info of infos) {
    seen.add(info.id);
    const agent = info.agent ?? (await fallbackAgent(ctx, info.id, info.name));
    if (agent) models.push(toModel(info, agent));
    else unresolved.push(info.id);
  }
  // A backend that does not merge the settings' agents does not list them either.
  for (const [name, server] of Object.entries(ctx.agentServers)) {
    if (seen.has(name)) continue;
    const info: ModelInfo = {
      id: name, name: `${name} (ACP)`, family: 'parley', version: '1',
      maxInputTokens: 200000, maxOutputTokens: 100000, capabilities: { toolCalling: true },
      detail: 'from the parley.agentServers setting',
    };
    models.push(toModel(info, flatAgent(name, name, server)));
  }
  return { models, unresolved };
}

async function fallbackAgent(ctx: ModelContext, id: string, name: string): Promise<AgentDefinition | undefined> {
  const server = ctx.agentServers[id];
  if (server) return flatAgent(id, name, server);
  const sub = SELF_AGENTS[id];
  if (sub) return flatAgent(id, name, { command: await ctx.parleyPath(), args: sub });
  return undefined;
}
