import type { Parley } from "../client";
import type { Session } from "../session";
import { MethodCommands, type Command, type CommandsResult } from "../parleyapi";

// parley's own chat commands that the page runs: the table is parley's (internal/chatcmd,
// asked once with _parley/commands), the page does them with the requests it has. A
// slash command that is not one of them is the agent's and is sent as typed.

export type ParleyCommand = Command;

let table: Promise<ParleyCommand[]> | null = null;

// parleyCommands is the table, asked for once; none if parley would not give it.
export function parleyCommands(parley: Parley): Promise<ParleyCommand[]> {
  table ??= parley.peer.request(MethodCommands, {}).then(
    (r: CommandsResult) => (Array.isArray(r?.commands) ? r.commands : []),
    () => [],
  );
  return table;
}

export function findCommand(cmds: ParleyCommand[], name: string): ParleyCommand | undefined {
  return cmds.find((c) => c.name === name || c.aliases?.includes(name));
}

// runCommand runs a line that names one of parley's commands and says how it went in the
// conversation; false when the line names none.
export async function runCommand(parley: Parley, session: Session, cmds: ParleyCommand[], line: string, workspace: string, carried?: (s: Session) => void): Promise<boolean> {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim());
  const cmd = m && findCommand(cmds, m[1]);
  if (!m || !cmd) return false;
  const args = m[2].trim();
  const say = (text: string, error = false) => session.add({ kind: "notice", text, error });
  try {
    switch (cmd.name) {
      case "mode":
      case "model":
        await choose(parley, session, cmd.name, args, say);
        break;
      case "config":
        await config(parley, session, args, say);
        break;
      case "undo":
      case "keep": {
        const { turn, paths } = target(args, workspace);
        await (cmd.name === "undo" ? parley.undo(session, turn, paths) : parley.keep(session, turn, paths));
        break;
      }
      case "fork":
      case "handoff":
      case "rewind": {
        const n = Number(args.replace(/^#/, ""));
        if (cmd.name === "rewind" && !(Number.isInteger(n) && n > 0)) return say(`${cmd.usage}: the number of a turn (see its "files changed" card)`, true), true;
        if (cmd.name === "handoff" && !args) return say(`${cmd.usage}: the agent to hand off to`, true), true;
        const params = cmd.name === "handoff" ? { agent: args } : cmd.name === "rewind" ? { turn: n } : {};
        const next = await parley.carry(`_parley/${cmd.name}`, session, params);
        carried?.(next);
        break;
      }
      default:
        say(`${cmd.usage}: not offered on this page`, true);
    }
  } catch (e) {
    say(`/${cmd.name}: ${String((e as Error).message ?? e)}`, true);
  }
  return true;
}

// choose shows or sets the mode or the model: a setting of that category where the agent
// has one, else its modes or models.
async function choose(parley: Parley, session: Session, what: "mode" | "model", id: string, say: (t: string, e?: boolean) => void) {
  const option = session.config.find((o: any) => o.category === what && o.type === "select");
  if (option) return config(parley, session, id ? `${option.id} ${id}` : option.id, say);
  const list = what === "mode" ? session.modes?.availableModes.map((x: any) => ({ id: x.id, name: x.name })) : session.models?.availableModels?.map((x: any) => ({ id: x.modelId, name: x.name }));
  if (!list?.length) return say(what === "mode" ? "This agent has no modes." : "This agent offers no choice of model.", true);
  if (!id) return say(`${what}s: ${list.map((x: { id: string; name: string }) => `${x.id} (${x.name})`).join(", ")}`);
  await (what === "mode" ? parley.setMode(session, id) : parley.setModel(session, id));
  say(`${what}: ${id}`);
}

async function config(parley: Parley, session: Session, args: string, say: (t: string, e?: boolean) => void) {
  const [id, ...rest] = args.split(/\s+/).filter(Boolean);
  const value = rest.join(" ");
  if (!id) {
    if (!session.config.length) return say("This agent offers no settings.", true);
    return say("Settings: " + session.config.map((o: any) => o.id).join(", ") + " (/config ID VALUE sets one)");
  }
  const option: any = session.config.find((o: any) => o.id === id);
  if (!option) return say(`This agent has no setting ${id}.`, true);
  if (!value) {
    const values = option.type === "boolean" ? ["true", "false"] : [...(option.options ?? [])].flatMap((v: any) => (v.options ? v.options : [v])).map((v: any) => v.value);
    return say(`${option.name}: ${values.join(", ")}`);
  }
  await parley.setConfig(session, id, option.type === "boolean" ? value === "true" : value);
  say(`${option.name}: ${value}`);
}

// target reads FILE|TURN as chatcmd does: a number is a turn ("#3" too), words are files of
// the workspace; nothing is the command's default (turn 0).
function target(args: string, workspace: string): { turn: number; paths?: string[] } {
  const words = args.split(/\s+/).filter(Boolean);
  const n = words.length === 1 ? Number(words[0].replace(/^#/, "")) : NaN;
  if (Number.isInteger(n) && n > 0) return { turn: n };
  if (!words.length) return { turn: 0 };
  return { turn: 0, paths: words.map((w) => (w.startsWith("/") ? w : workspace.replace(/\/$/, "") + "/" + w)) };
}
