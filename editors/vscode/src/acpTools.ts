// The agent's tool calls as ACP sends them (tool_call, then tool_call_update with the
// fields that changed), folded into the whole current state of each call in the shape
// the turn renderer shows (render.ts's ToolInvocation).

import type { ToolCallFields } from './acpTypes';
import type { ToolInvocation } from './wire';

// A title that starts with one of these verbs gets both tenses ("Build the project":
// "Building the project" while it runs, "Built the project" once done), as parley's
// terminal and web views say it (toolui's titleVerbs, which this follows).
const VERBS: Record<string, [string, string]> = {};
for (const [base, present, past] of [
  ['add', 'adding', 'added'], ['analyze', 'analyzing', 'analyzed'], ['apply', 'applying', 'applied'], ['browse', 'browsing', 'browsed'],
  ['build', 'building', 'built'], ['cache', 'caching', 'cached'], ['check', 'checking', 'checked'], ['copy', 'copying', 'copied'],
  ['create', 'creating', 'created'], ['delete', 'deleting', 'deleted'], ['download', 'downloading', 'downloaded'], ['edit', 'editing', 'edited'],
  ['execute', 'executing', 'executed'], ['fetch', 'fetching', 'fetched'], ['find', 'finding', 'found'], ['get', 'getting', 'got'],
  ['install', 'installing', 'installed'], ['list', 'listing', 'listed'], ['load', 'loading', 'loaded'], ['make', 'making', 'made'],
  ['modify', 'modifying', 'modified'], ['move', 'moving', 'moved'], ['open', 'opening', 'opened'], ['read', 'reading', 'read'],
  ['remove', 'removing', 'removed'], ['rename', 'renaming', 'renamed'], ['replace', 'replacing', 'replaced'], ['run', 'running', 'ran'],
  ['save', 'saving', 'saved'], ['search', 'searching', 'searched'], ['test', 'testing', 'tested'], ['update', 'updating', 'updated'],
  ['view', 'viewing', 'viewed'], ['write', 'writing', 'wrote'],
]) {
  VERBS[base] = VERBS[present] = [present, past];
}

/** A title in the two tenses: while the call runs, and once it has. */
export function tenses(title: string): { present: string; past: string } {
  const t = title.trim();
  const space = t.indexOf(' ');
  const verb = space > 0 ? t.slice(0, space) : t;
  const v = VERBS[verb.toLowerCase()];
  if (!v) return { present: t, past: t.replace(/[.…? ]+$/, '') };
  const cap = (w: string) => (verb[0] === verb[0].toUpperCase() ? w[0].toUpperCase() + w.slice(1) : w);
  const rest = space > 0 ? t.slice(space) : '';
  return { present: cap(v[0]) + rest, past: (cap(v[1]) + rest).replace(/[.…? ]+$/, '') };
}

/** The tool calls of one turn, each folded from its updates. */
export class ToolCalls {
  private readonly calls = new Map<string, ToolCallFields>();

  /** Folds an update in and returns the call's whole state as the renderer takes it. */
  fold(u: ToolCallFields): ToolInvocation {
    const prev = this.calls.get(u.toolCallId) ?? { toolCallId: u.toolCallId };
    const next: ToolCallFields = { ...prev };
    for (const [k, v] of Object.entries(u)) if (v !== undefined && v !== null) (next as unknown as Record<string, unknown>)[k] = v;
    this.calls.set(u.toolCallId, next);
    return invocation(next);
  }

  /** The title the agent gave a call, if it did. */
  title(id: string): string | undefined {
    return this.calls.get(id)?.title ?? undefined;
  }
}

function invocation(c: ToolCallFields): ToolInvocation {
  const title = c.title || c.kind || 'tool';
  const { present, past } = tenses(title);
  const text = (c.content ?? []).map((x) => (x.type === 'content' && x.content?.type === 'text' ? x.content.text ?? '' : '')).filter(Boolean).join('\n');
  const failed = c.status === 'failed';
  const command = commandOf(c.rawInput);
  return {
    toolCallId: c.toolCallId,
    state: c.status === 'completed' || failed ? 'completed' : 'executing',
    isError: failed,
    title,
    kind: c.kind ?? undefined,
    invocationMessage: present,
    pastTenseMessage: past,
    errorMessage: failed ? text || undefined : undefined,
    ...(command && c.kind === 'execute' ? { terminalCommand: command } : {}),
    content: text || undefined,
  };
}

function commandOf(raw: unknown): string | undefined {
  const r = raw as { command?: unknown } | undefined;
  if (typeof r?.command === 'string') return r.command;
  if (Array.isArray(r?.command) && r.command.every((x) => typeof x === 'string')) return r.command.join(' ');
  return undefined;
}
