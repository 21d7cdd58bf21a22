// The agent's tool calls as ACP sends them (tool_call, then tool_call_update with the
// fields that changed), folded into the whole current state of each call in the shape
// the turn renderer shows (render.ts's ToolInvocation). What the call says while it runs
// and once done is parley's (_meta.parley, the words of its other views).

import type { ToolCallFields } from './acpTypes';
import type { ToolInvocation } from './wire';

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
  const said = c._meta?.parley;
  const present = said?.invocation || title;
  const past = said?.pastTense || title;
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
