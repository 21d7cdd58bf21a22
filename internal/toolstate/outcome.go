package toolstate

// Outcome is how a tool call ended, in the one set of words every front-end uses: the
// text and Markdown renderers, the terminal UI, the line chat, parley run --json (the
// call's "outcome"), and the web page and VS Code (_meta.parley.outcome of the call's
// updates). One refusal reads the same everywhere, never "failed", and never in the words
// the agent wrote for its model.
type Outcome string

const (
	OutcomeNone            Outcome = ""                  // not over yet
	OutcomeDone            Outcome = "done"              // it ran and succeeded
	OutcomeFailed          Outcome = "failed"            // it ran and failed
	OutcomeRefusedByYou    Outcome = "refused_by_you"    // a person answered no
	OutcomeRefusedByRule   Outcome = "refused_by_rule"   // a rule of the configuration refused it
	OutcomeRefusedByAlways Outcome = "refused_by_always" // an earlier "reject always" refused it
	OutcomeNoOneToAsk      Outcome = "no_one_to_ask"     // it needed a question and nobody could be asked
	OutcomeRefusedByParley Outcome = "refused_by_parley" // parley could not decide it safely
	OutcomeCancelled       Outcome = "cancelled"         // the turn was cancelled first
)

var outcomeWords = map[Outcome]string{
	OutcomeDone:            "done",
	OutcomeFailed:          "failed",
	OutcomeRefusedByYou:    "not run: refused by you",
	OutcomeRefusedByRule:   "not run: refused by a rule",
	OutcomeRefusedByAlways: "not run: refused by an earlier “always”",
	OutcomeNoOneToAsk:      "not run: refused (no one to ask)",
	OutcomeRefusedByParley: "not run: refused by parley (it could not be decided safely)",
	OutcomeCancelled:       "cancelled",
}

// Words is the outcome as a person reads it: "done", "failed", "not run: refused (no
// one to ask)", … ("" for OutcomeNone).
func (o Outcome) Words() string { return outcomeWords[o] }

// Refused reports whether the call was refused and so never ran.
func (o Outcome) Refused() bool {
	switch o {
	case OutcomeRefusedByYou, OutcomeRefusedByRule, OutcomeRefusedByAlways, OutcomeNoOneToAsk, OutcomeRefusedByParley:
		return true
	}
	return false
}

// Outcome is how the call ended, OutcomeNone while it has not. A refused permission
// request decides it whatever the agent reports afterwards (agents report a refused call
// "failed", with text written for the model).
func (tc *ToolCall) Outcome() Outcome {
	if c := tc.Confirmation; c != nil && c.Outcome != "" && !c.Allowed() {
		if c.Outcome == "cancelled" {
			return OutcomeCancelled
		}
		switch c.DecidedBy {
		case "rule":
			return OutcomeRefusedByRule
		case "always":
			return OutcomeRefusedByAlways
		case "no_one_to_ask":
			return OutcomeNoOneToAsk
		case "parley":
			return OutcomeRefusedByParley
		case "cancelled":
			return OutcomeCancelled
		}
		return OutcomeRefusedByYou
	}
	switch tc.State {
	case Completed:
		if tc.IsError {
			return OutcomeFailed
		}
		return OutcomeDone
	case Cancelled:
		return OutcomeCancelled
	}
	return OutcomeNone
}

// EndLine is a finished call's headline and note in the words of its outcome: for a
// call that ran, its past-tense message and, when it failed, "failed: " and why; for
// one that did not, what it would have done (its command, else the question's title)
// and the outcome's words. o is OutcomeNone while the call has not ended.
func (tc *ToolCall) EndLine() (msg, note string, o Outcome) {
	o = tc.Outcome()
	switch {
	case o == OutcomeNone:
		return "", "", o
	case o == OutcomeDone:
		return tc.PastTenseMessage, "", o
	case o == OutcomeFailed:
		note = o.Words()
		if why := firstLineOf(tc.ErrorMessage); why != "" && why != note {
			note += ": " + why
		}
		return tc.PastTenseMessage, note, o
	case o.Refused():
		switch {
		case tc.TerminalCommand != "":
			msg = Code(OneLine(tc.TerminalCommand))
		case tc.Confirmation != nil && tc.Confirmation.Title != "":
			msg = OneLine(tc.Confirmation.Title)
		default:
			msg = tc.InvocationMessage
		}
		return msg, o.Words(), o
	}
	return tc.InvocationMessage, o.Words(), o
}

func firstLineOf(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			s = s[:i]
			break
		}
	}
	return OneLine(s)
}
