// A card is one thing in the conversation (a message, a tool call, a question, a plan).
// update draws the entry's current state; it returns false when it chose to wait (a
// long reply is not redrawn on every chunk), and the log asks again a little later.
export interface Card {
  el: HTMLElement;
  update(): boolean;
}

export interface Actions {
  openFile(path: string, line?: number): void;
  openDiff(path: string, oldText: string | null, newText: string): void;
  // newAddress has parley replace its token (parley web only): the address it printed,
  // and every other page opened with it, stop working; parley prints the new one.
  newAddress?(): Promise<void>;
}

// PromptActions are what a past user message offers: the conversation taken back to
// before its turn (files too), or that and its text sent again, edited.
export interface PromptActions {
  rewind(turn: number): Promise<void>;
  resend(turn: number, text: string): Promise<void>;
}
