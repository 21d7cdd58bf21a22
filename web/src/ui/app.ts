import type { Parley } from "../client";
import { h, clear } from "../dom";
import { parleyMeta } from "../meta";
import type { SessionListMeta } from "../parleyapi";
import type { Session } from "../session";
import type { Actions, PromptActions } from "./card";
import { Composer } from "./composer";
import { Log } from "./log";
import { Settings } from "./settings";
import { themeSwitch } from "./theme";
import { welcomeView } from "./welcome";

const openKey = "parley.open";

// App is the page: a tab per conversation (each with any agent parley knows), the
// conversation of the selected one, its settings and composer; the list of sessions to
// load or close.
export class App {
  el = h("div", { class: "app" });
  private tabs = h("div", { class: "tabs", role: "tablist" });
  private main = h("div", { class: "main" });
  private views = new Map<string, { el: HTMLElement; composer: Composer }>();
  private current: string | null = null;
  private panel = h("div", { class: "panel", hidden: true });

  constructor(private parley: Parley, private actions: Actions) {
    const newButton = h("button", { class: "tab-new", title: "New conversation", "aria-label": "new conversation", onclick: () => this.newMenu() }, "+");
    const listButton = h("button", { class: "tab-list", title: "Sessions", onclick: () => this.sessionList() }, "Sessions");
    const convButton = h("button", { class: "tab-list conv-menu", title: "Fork this conversation, or hand it off to another agent", "aria-label": "conversation menu", onclick: () => this.conversationMenu() }, "⋯");
    const addressButton = actions.newAddress
      ? h("button", { class: "tab-list", title: "Replace the address parley printed with a new one", onclick: () => this.newAddressPanel() }, "New address")
      : null;
    this.el.append(h("header", {}, this.tabs, h("div", { class: "header-buttons" }, newButton, convButton, listButton, addressButton, themeSwitch())), this.panel, this.main);
    parley.onSessions.push(() => this.drawTabs());
    parley.peer.onClose((why) => {
      this.main.prepend(h("div", { class: "notice error", role: "alert", text: `Disconnected from parley: ${why}. Reload the page to reconnect.` }));
    });
  }

  async start() {
    let open: string[] = [];
    try {
      open = JSON.parse(sessionStorage.getItem(openKey) ?? "[]");
    } catch {}
    for (const id of open) await this.parley.load(id).catch(() => {});
    // A page opened afresh (a second window, the printed address again) shows the
    // conversations parley holds open, as they stand; a new one only when there is none.
    if (!this.parley.sessions.size) {
      const live = await this.parley.live().catch(() => []);
      for (const info of live) await this.parley.load(info.sessionId, parleyMeta<SessionListMeta>(info)?.agent, info.title ?? undefined).catch(() => {});
    }
    if (!this.parley.sessions.size) await this.parley.newSession().catch((e) => this.error(e));
    const first = [...this.parley.sessions.keys()][0];
    if (first) this.select(first);
  }

  private error(e: unknown) {
    this.main.prepend(h("div", { class: "notice error", role: "alert", text: String((e as Error)?.message ?? e) }));
  }

  private remember() {
    try {
      sessionStorage.setItem(openKey, JSON.stringify([...this.parley.sessions.keys()]));
    } catch {}
  }

  private drawTabs() {
    this.remember();
    clear(this.tabs);
    for (const s of this.parley.sessions.values()) {
      // The agent's name always shows; the title, when there is one, is what is cut.
      const agent = s.meta.agentTitle || s.meta.agent;
      const label = s.title ? `${agent} · ${s.title}` : agent;
      const tab = h(
        "div",
        { class: `tab${s.id === this.current ? " active" : ""}` },
        h(
          "button",
          { role: "tab", "aria-selected": s.id === this.current ? "true" : "false", class: "tab-label", title: `${label}\n${s.meta.agent} in ${s.meta.cwd}`, onclick: () => this.select(s.id) },
          h("span", { class: "tab-agent", text: agent }),
          s.title ? h("span", { class: "tab-title", text: s.title }) : null,
        ),
        h("button", { class: "tab-close", title: "Close this conversation", "aria-label": `close ${label}`, onclick: () => this.close(s) }, "×"),
      );
      this.tabs.append(tab);
    }
  }

  // currentSession is the conversation on screen (what a file link is read in).
  currentSession(): Session | undefined {
    return this.current ? this.parley.sessions.get(this.current) : undefined;
  }

  select(id: string) {
    const s = this.parley.sessions.get(id);
    if (!s) return;
    this.current = id;
    let v = this.views.get(id);
    if (!v) v = this.makeView(s);
    for (const [k, x] of this.views) x.el.hidden = k !== id;
    this.drawTabs();
    v.composer.focus();
  }

  private makeView(s: Session) {
    const log = new Log(s, this.actions, this.parley, this.promptActions(s));
    const settings = new Settings(this.parley, s);
    const composer = new Composer(this.parley, s, (next) => this.select(next.id));
    const el = h("section", { class: "conversation", "aria-label": s.meta.agent }, welcomeView(this.parley, s, () => this.newMenu(), (agent) => this.startWith(agent)), log.el, settings.queue, composer.el, settings.el);
    s.onChange(() => {
      if (s.title) this.drawTabsSoon();
    });
    this.main.append(el);
    const v = { el, composer };
    this.views.set(s.id, v);
    return v;
  }

  // promptActions rewinds the conversation from one of its messages: parley opens the
  // session that goes on from before the turn, shown in a tab of its own.
  private promptActions(s: Session): PromptActions {
    return {
      rewind: async (turn) => {
        const next = await this.parley.carry("_parley/rewind", s, { turn });
        this.select(next.id);
      },
      resend: async (turn, text) => {
        const next = await this.parley.carry("_parley/rewind", s, { turn });
        this.select(next.id);
        await this.views.get(next.id)?.composer.sendText(text);
      },
    };
  }

  // conversationMenu offers what parley can do with the whole conversation on screen:
  // fork it (the same agent, from here), or hand it off to another agent.
  private async conversationMenu() {
    const s = this.currentSession();
    if (!s) return;
    const name = s.title || s.meta.agentTitle || s.meta.agent;
    const fork = h("button", { class: "carry-fork", title: "A new session with the same agent that goes on from here, with its own record of changes; this one stays" }, "Fork");
    const select = h("select", { "aria-label": "hand off to" });
    const handoff = h("button", { class: "carry-handoff", disabled: true }, "Hand off");
    const cancel = h("button", { onclick: () => this.closePanel() }, "Cancel");
    const box = h(
      "div",
      { class: "carry" },
      h("div", { class: "panel-head" }, h("strong", { text: name }), cancel),
      h("div", { class: "carry-row" }, fork, h("span", { class: "muted", text: "the same agent, from here" })),
      h("div", { class: "carry-row" }, h("label", {}, "Hand off to… ", select), handoff),
    );
    this.openPanel(box);
    const run = async (b: HTMLButtonElement, f: () => Promise<Session>) => {
      b.disabled = true;
      const was = b.textContent;
      b.textContent = "Working…";
      try {
        const next = await f();
        this.closePanel();
        this.select(next.id);
      } catch (e) {
        b.disabled = false;
        b.textContent = was;
        box.append(h("div", { class: "notice error", role: "alert", text: String((e as Error)?.message ?? e) }));
      }
    };
    fork.onclick = () => run(fork, () => this.parley.carry("_parley/fork", s, {}));
    handoff.onclick = () => run(handoff, () => this.parley.carry("_parley/handoff", s, { agent: select.value }));
    try {
      const { agents } = await this.parley.agents();
      for (const a of agents) {
        if (a.name === s.meta.agent) continue;
        select.append(h("option", { value: a.name, disabled: !!a.notRunnable, title: a.notRunnable ?? a.about ?? a.source, text: a.name + (a.notRunnable ? " (cannot run here)" : "") }));
      }
      const first = [...select.options].find((o) => !o.disabled);
      if (first) (select.value = first.value), (handoff.disabled = false);
    } catch (e) {
      box.append(h("div", { class: "notice error", text: String((e as Error)?.message ?? e) }));
    }
  }

  private tabsPending = false;
  private drawTabsSoon() {
    if (this.tabsPending) return;
    this.tabsPending = true;
    requestAnimationFrame(() => {
      this.tabsPending = false;
      this.drawTabs();
    });
  }

  private async close(s: Session) {
    await this.parley.close(s);
    this.views.get(s.id)?.el.remove();
    this.views.delete(s.id);
    if (this.current === s.id) {
      const next = [...this.parley.sessions.keys()][0];
      this.current = null;
      if (next) this.select(next);
      else this.drawTabs();
    }
  }

  // startWith opens a conversation with agent in a tab of its own (the first screen's
  // buttons); a failure is the caller's to show.
  private async startWith(agent: string) {
    const s = await this.parley.newSession(agent);
    this.select(s.id);
  }

  private async newMenu() {
    const { agents, default: def } = await this.parley.agents();
    const select = h("select", { "aria-label": "agent" });
    for (const a of agents) select.append(h("option", { value: a.name, disabled: !!a.notRunnable, title: a.notRunnable ?? a.source, text: a.name + (a.notRunnable ? " (cannot run here)" : "") }));
    select.value = def;
    const start = h("button", { class: "allow" }, "Start");
    const cancel = h("button", {}, "Cancel");
    this.openPanel(h("div", { class: "new-conv" }, h("label", {}, "New conversation with ", select), start, cancel));
    select.focus();
    cancel.onclick = () => this.closePanel();
    start.onclick = async () => {
      start.disabled = true;
      start.textContent = "Starting…";
      try {
        const s = await this.parley.newSession(select.value);
        this.closePanel();
        this.select(s.id);
      } catch (e) {
        start.disabled = false;
        start.textContent = "Start";
        this.panel.append(h("div", { class: "notice error", text: String((e as Error).message ?? e) }));
      }
    };
  }

  // newAddressPanel explains what a new address does before parley makes one.
  private newAddressPanel() {
    const replace = h("button", { class: "reject" }, "Replace the address");
    const cancel = h("button", { onclick: () => this.closePanel() }, "Cancel");
    this.openPanel(
      h(
        "div",
        { class: "new-address" },
        h("p", { text: "parley makes a new token and prints the new address in its terminal. The address it printed before, and every other page opened with it, stop working at once. This page goes on with the new one." }),
        replace,
        cancel,
      ),
    );
    replace.onclick = async () => {
      replace.disabled = true;
      try {
        await this.actions.newAddress!();
      } catch (e) {
        replace.disabled = false;
        this.panel.append(h("div", { class: "notice error", text: String((e as Error).message ?? e) }));
      }
    };
  }

  private async sessionList() {
    const list = h("ul", { class: "session-list" });
    this.openPanel(h("div", {}, h("div", { class: "panel-head" }, h("strong", { text: "Sessions" }), h("button", { onclick: () => this.closePanel() }, "Close")), list));
    try {
      const { sessions } = await this.parley.list();
      if (!sessions.length) list.append(h("li", { class: "muted", text: "none" }));
      for (const info of sessions) {
        const meta: Partial<SessionListMeta> = parleyMeta<SessionListMeta>(info) ?? {};
        const open = this.parley.sessions.has(info.sessionId);
        // Named by what was said and with whom; the id only in the tooltip.
        list.append(
          h(
            "li",
            { title: info.sessionId },
            h("span", { class: `session-title${info.title ? "" : " muted"}`, text: info.title || "untitled conversation" }),
            h("span", { class: "muted session-what", text: `${meta.agent ?? ""}${meta.live ? " · open" : ""}${info.updatedAt ? " · " + when(info.updatedAt) : ""}` }),
            open
              ? h("button", { class: "small", onclick: () => (this.closePanel(), this.select(info.sessionId)) }, "Show")
              : h("button", { class: "small", onclick: async () => {
                  try {
                    const s = await this.parley.load(info.sessionId, meta.agent, info.title ?? undefined);
                    this.closePanel();
                    this.select(s.id);
                  } catch (e) {
                    this.panel.append(h("div", { class: "notice error", text: String((e as Error).message ?? e) }));
                  }
                } }, meta.live ? "Open" : "Resume"),
          ),
        );
      }
    } catch (e) {
      list.append(h("li", { class: "notice error", text: String((e as Error).message ?? e) }));
    }
  }

  private openPanel(content: HTMLElement) {
    this.panel.replaceChildren(content);
    this.panel.hidden = false;
    this.panel.onkeydown = (e) => {
      if (e.key === "Escape") this.closePanel();
    };
  }

  private closePanel() {
    this.panel.hidden = true;
    clear(this.panel);
    if (this.current) this.views.get(this.current)?.composer.focus();
  }
}

// when is a time as a person reads it: today's as the time, older as the date.
function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const now = new Date();
  return d.toDateString() === now.toDateString() ? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : d.toLocaleDateString();
}
