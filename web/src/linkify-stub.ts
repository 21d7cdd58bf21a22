// markdown-it constructs a linkify-it matcher even when linkify is off, as it is here
// (the agent's bare URLs stay text): this stand-in matches nothing, and keeps linkify-it
// and its Unicode tables out of the bundle.
export class LinkifyIt {
  test() {
    return false;
  }
  pretest() {
    return false;
  }
  match() {
    return null;
  }
  matchAtStart() {
    return null;
  }
  set() {
    return this;
  }
  add() {
    return this;
  }
  tlds() {
    return this;
  }
}
