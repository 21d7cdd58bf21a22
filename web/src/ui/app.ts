import type { Parley } from "../client";
import { h, clear } from "../dom";
import { parleyMeta } from "../meta";
import type { SessionListMeta } from "../parleyapi";
import type { Session } from "../session";
import type { Actions } from "./card";
import { Composer } from "./composer";
import { Log } from "./log";
import { Settings } from "./settings";
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
    const addressButton = actions.newAddress
      ? h("button", { class: "tab-list", title: "Replace the address parley printed with a new one", onclick: () => this.newAddressPanel() }, "New address")
      : null;
    this.el.append(h("header", {}, this.tabs, newButton, listButton, addressButton), this.panel, this.main);
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
      const label = s.title || s.meta.agentTitle || s.meta.agent;
      const tab = h(
        "div",
        { class: `tab${s.id === this.current ? " active" : ""}` },
        h("button", { role: "tab", "aria-selected": s.id === this.current ? "true" : "false", class: "tab-label", title: `${s.meta.agent} in ${s.meta.cwd}`, onclick: () => this.select(s.id) }, label),
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
    const log = new Log(s, this.actions, this.parley);
    const settings = new Settings(this.parley, s);
    const composer = new Composer(this.parley, s);
    const el = h("section", { class: "conversation", "aria-label": s.meta.agent }, welcomeView(this.parley, s, () => this.newMenu()), log.el, settings.queue, composer.el, settings.el);
    s.onChange(() => {
      if (s.title) this.drawTabsSoon();
    });
    this.main.append(el);
    const v = { el, composer };
    this.views.set(s.id, v);
    return v;
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
        list.append(
          h(
            "li",
            {},
            h("span", { text: info.title || info.sessionId }),
            h("span", { class: "muted", text: ` ${meta.agent ?? ""} · ${info.updatedAt ?? ""}` }),
            open
              ? h("button", { class: "small", onclick: () => (this.closePanel(), this.select(info.sessionId)) }, "Show")
              : h("button", { class: "small", onclick: async () => {
                  try {
                    const s = await this.parley.load(info.sessionId, meta.agent);
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
