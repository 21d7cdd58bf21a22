import type { Parley } from "../client";
import { h } from "../dom";
import { visible } from "../visible";
import type { AgentEntry } from "../parleyapi";
import type { Session } from "../session";

// welcomeView is a conversation's first screen, while nothing has been said: the
// workspace, the agent and what it is (Eliza is a demo, not a model), the agents parley
// knows with whether each can run here (as `parley agents` says it), and the keys and
// clicks that matter. Each agent that can run here is a button that opens a conversation
// with it (as the "+" menu does; this one stays). It goes once the conversation starts.
export function welcomeView(parley: Parley, s: Session, newConversation: () => void, startWith: (agent: string) => Promise<void>): HTMLElement {
  const agents = h("ul", { class: "welcome-agents" });
  const el = h(
    "div",
    { class: "welcome", "aria-label": "about this conversation" },
    h("div", { class: "welcome-row" }, h("span", { class: "muted", text: "workspace " }), h("code", { text: s.meta.cwd })),
    h("div", { class: "welcome-row welcome-agent" }, h("span", { class: "muted", text: "agent " }), h("strong", { text: s.meta.agentTitle || s.meta.agent })),
    h("div", { class: "welcome-row muted" }, "Agents parley knows (click one to start a conversation with it, or ", h("button", { class: "link", onclick: newConversation }, "+"), "; `parley agents` lists the registry's):"),
    agents,
    h("div", { class: "welcome-row muted", text: "Enter sends · Shift+Enter a new line · Esc or Stop stops a turn · @ attaches a file · / lists commands · a file or diff opens here" }),
  );
  parley.agents().then(({ agents: list }) => {
    const mine = list.find((a) => a.name === s.meta.agent);
    if (mine?.about) el.querySelector(".welcome-agent")!.append(h("span", { class: "muted", text: " — " + mine.about }));
    for (const a of list) agents.append(agentLine(a, startWith));
  }, () => {});
  const shown = () => (el.hidden = s.entries.length > 0);
  s.onEntries(shown);
  shown();
  return el;
}

function agentLine(a: AgentEntry, startWith: (agent: string) => Promise<void>): HTMLElement {
  const words = a.availability ?? (a.notRunnable ? "no: " + a.notRunnable : "yes");
  const state = words === "yes" ? "ok" : words.startsWith("no") || words.startsWith("needs a model server") ? "no" : "download";
  const mark = state === "ok" ? "✓" : state === "no" ? "✗" : "↓";
  // One that cannot run here is named, not offered: its words say why.
  const name =
    state === "no"
      ? h("strong", { text: a.name, title: "cannot run here: " + words })
      : h("button", { class: "welcome-start", title: `Start a conversation with ${a.name} (this one stays)` }, a.name);
  const error = h("span", { class: "notice error", role: "alert", hidden: true });
  if (name instanceof HTMLButtonElement) {
    name.onclick = async () => {
      name.disabled = true;
      error.hidden = true;
      try {
        await startWith(a.name);
      } catch (e) {
        error.textContent = visible(String((e as Error)?.message ?? e));
        error.hidden = false;
      } finally {
        name.disabled = false;
      }
    };
  }
  return h(
    "li",
    { class: `welcome-agent-${state}`, "data-agent": a.name },
    h("span", { class: "mark", text: mark }),
    " ",
    name,
    " ",
    h("span", { text: state === "ok" ? "runs here" : words }),
    a.about ? h("span", { class: "muted", text: " · " + a.about }) : null,
    a.signIn ? h("span", { class: "welcome-signin", text: " · " + a.signIn }) : null,
    error,
  );
}
