import { h } from "../dom";
import type { Entry, Session } from "../session";
import type { Actions, Card, PromptActions } from "./card";
import type { Parley } from "../client";
import { ChangesCard } from "./changes";
import { ElicitationCard } from "./elicitation";
import { SignInCard } from "./signin";
import { AgentCard, NoticeCard, UserCard } from "./message";
import { PlanCard } from "./plan";
import { QuestionCard } from "./question";
import { ToolCard } from "./toolcard";

// Log is the conversation as cards, one per entry. Changes are drawn once per frame,
// never while the page is handling a message: a flood of chunks costs one draw a frame,
// and the page stays responsive. It keeps the newest at the bottom in view while the
// reader is there.
export class Log {
  el = h("div", { class: "log", role: "log", "aria-live": "polite", tabindex: "0" });
  private cards = new Map<number, { card: Card; drawn: number }>();
  private scheduled = false;
  private pinned = true;
  private resized: ResizeObserver;

  constructor(private session: Session, private actions: Actions, private parley: Parley, private prompts?: PromptActions) {
    // The view follows the newest until the reader scrolls up (a wheel, a key, the
    // scroll bar), and again once they are back at the bottom. Scroll events alone do not
    // unpin it: the browser also scrolls when the text above is laid out.
    const atBottom = () => this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 40;
    let dragging = false;
    this.el.addEventListener("scroll", () => {
      if (atBottom()) this.pinned = true;
      else if (dragging) this.pinned = false;
    });
    this.el.addEventListener("wheel", (e) => {
      if (e.deltaY < 0) this.pinned = false;
    }, { passive: true });
    this.el.addEventListener("keydown", (e) => {
      if (["ArrowUp", "PageUp", "Home"].includes(e.key)) this.pinned = false;
    });
    this.el.addEventListener("pointerdown", () => (dragging = true));
    window.addEventListener("pointerup", () => (dragging = false));
    // A card can grow after it was drawn and scrolled to: long text is laid out only as it
    // comes into view (content-visibility), images decode later. Pinned, the view follows.
    this.resized = new ResizeObserver(() => {
      if (this.pinned && !atBottom()) this.el.scrollTop = this.el.scrollHeight;
    });
    session.onEntries(() => this.schedule());
    this.schedule();
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => this.draw());
  }

  private draw() {
    this.scheduled = false;
    const entries = this.session.entries;
    let again = false;
    let prev: Element | null = null;
    const live = new Set<number>();
    for (const e of entries) {
      live.add(e.key);
      let c = this.cards.get(e.key);
      if (!c) {
        c = { card: this.make(e), drawn: -1 };
        this.cards.set(e.key, c);
        this.resized.observe(c.card.el);
      }
      if (c.drawn !== e.version) {
        if (c.card.update()) c.drawn = e.version;
        else again = true;
      }
      const want: Element | null = prev ? prev.nextElementSibling : this.el.firstElementChild;
      if (want !== c.card.el) {
        if (prev) prev.after(c.card.el);
        else this.el.prepend(c.card.el);
      }
      prev = c.card.el;
    }
    for (const [key, c] of this.cards) {
      if (!live.has(key)) {
        this.resized.unobserve(c.card.el);
        c.card.el.remove();
        this.cards.delete(key);
      }
    }
    if (this.pinned) this.el.scrollTop = this.el.scrollHeight;
    if (again) setTimeout(() => this.schedule(), 16);
  }

  private make(e: Entry): Card {
    switch (e.kind) {
      case "user":
        return new UserCard(e, this.actions, this.session, this.prompts);
      case "agent":
        return new AgentCard(e);
      case "thought":
        return new AgentCard(e, true);
      case "tool":
        return new ToolCard(e, this.session, this.actions);
      case "plan":
        return new PlanCard(e);
      case "notice":
        return new NoticeCard(e);
      case "question":
        return new QuestionCard(e, this.actions);
      case "elicitation":
        return new ElicitationCard(e, this.session.meta.agentTitle || this.session.meta.agent);
      case "signin":
        return new SignInCard(e, this.parley, this.session);
      case "changes":
        return new ChangesCard(e, this.parley, this.session, this.actions);
    }
  }
}
