import type { Parley } from "../client";
import { h } from "../dom";
import type { AgentEntry } from "../parleyapi";
import type { Session } from "../session";

// welcomeView is a conversation's first screen, while nothing has been said: the
// workspace, the agent and what it is (Eliza is a demo, not a model), the agents parley
// knows with whether each can run here (as `parley agents` says it), and the keys and
// clicks that matter. It goes once the conversation starts.
export function welcomeView(parley: Parley, s: Session, newConversation: () => void): HTMLElement {
  const agents = h("ul", { class: "welcome-agents" });
  const el = h(
    "div",
    { class: "welcome", "aria-label": "about this conversation" },
    h("div", { class: "welcome-row" }, h("span", { class: "muted", text: "workspace " }), h("code", { text: s.meta.cwd })),
    h("div", { class: "welcome-row welcome-agent" }, h("span", { class: "muted", text: "agent " }), h("strong", { text: s.meta.agentTitle || s.meta.agent })),
    h("div", { class: "welcome-row muted" }, "Agents parley knows (", h("button", { class: "link", onclick: newConversation }, "+ starts a conversation"), " with one; `parley agents` lists the registry's):"),
    agents,
    h("div", { class: "welcome-row muted", text: "Enter sends · Shift+Enter a new line · Esc or Stop stops a turn · @ attaches a file · / lists commands · a file or diff opens here" }),
  );
  parley.agents().then(({ agents: list }) => {
    const mine = list.find((a) => a.name === s.meta.agent);
    if (mine?.about) el.querySelector(".welcome-agent")!.append(h("span", { class: "muted", text: " — " + mine.about }));
    for (const a of list) agents.append(agentLine(a));
  }, () => {});
  const shown = () => (el.hidden = s.entries.length > 0);
  s.onEntries(shown);
  shown();
  return el;
}

function agentLine(a: AgentEntry): HTMLElement {
  const words = a.availability ?? (a.notRunnable ? "no: " + a.notRunnable : "yes");
  const state = words === "yes" ? "ok" : words.startsWith("no") ? "no" : "download";
  const mark = state === "ok" ? "✓" : state === "no" ? "✗" : "↓";
  return h(
    "li",
    { class: `welcome-agent-${state}`, "data-agent": a.name },
    h("span", { class: "mark", text: mark }),
    " ",
    h("strong", { text: a.name }),
    " ",
    h("span", { text: state === "ok" ? "runs here" : words }),
    a.about ? h("span", { class: "muted", text: " · " + a.about }) : null,
  );
}
