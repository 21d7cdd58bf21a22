package toolstate

import "github.com/parley-acp/parley/acp"

// Decide records how a permission request was decided, and by whom (by: a
// permission.Decider's word). A request that waited for an answer (AwaitConfirmation)
// is resolved as ResolveConfirmation does, and updated is its ToolUpdated event. One
// refused without a question (a rule, an "always", nobody to ask) ends the call then
// and there: it is Cancelled with the decision as its Confirmation (started if the
// agent had not reported it yet), so that every view says it was refused and by what,
// not what the agent reports of it afterwards; updated is its ToolStarted or ToolUpdated
// event. One allowed without a question (a rule, an "always", --yolo) leaves the turn as
// it was, for the views draw the call as the agent reports it, and updated is the zero
// Event. decided is the PermissionDecided event either way: the call with its
// Confirmation's Outcome and DecidedBy (a copy when the turn does not hold it so).
func (t *Turn) Decide(req *acp.RequestPermissionRequest, outcome acp.RequestPermissionOutcome, by string) (updated, decided Event) {
	id := req.ToolCall.ToolCallID
	if tc := t.calls[id]; tc != nil && tc.Confirmation != nil && tc.Confirmation.Outcome == "" {
		updated = t.ResolveConfirmation(id, outcome)
		tc.Confirmation.DecidedBy = by
		return updated, Event{Kind: PermissionDecided, Tool: tc}
	}
	kind := outcomeKind(req.Options, outcome)
	fields := req.ToolCall
	fields.Status = "" // the request's copy of the status is not news
	if kind != string(acp.PermissionOptionKindAllowOnce) && kind != string(acp.PermissionOptionKindAllowAlways) {
		tc, isNew := t.call(id)
		before := snapshotOf(tc)
		tc.apply(&fields)
		tc.derive(t.root, t.Call)
		conf := newConfirmation(req, tc)
		conf.Outcome, conf.DecidedBy = kind, by
		tc.Confirmation = conf
		if !tc.State.Done() {
			tc.State = Cancelled
		}
		t.events = t.events[:0]
		t.report(tc, isNew, before)
		if len(t.events) > 0 {
			updated = t.events[0]
		}
		return updated, Event{Kind: PermissionDecided, Tool: tc}
	}
	tc := &ToolCall{ID: id}
	if seen := t.calls[id]; seen != nil {
		tc = seen.Clone()
	}
	tc.apply(&fields)
	tc.derive(t.root, t.Call)
	conf := newConfirmation(req, tc)
	conf.Outcome, conf.DecidedBy = kind, by
	tc.Confirmation = conf
	return Event{}, Event{Kind: PermissionDecided, Tool: tc}
}

// outcomeKind is the Confirmation.Outcome of outcome: the kind of the option chosen,
// "unknown" for an id not among options, or "cancelled".
func outcomeKind(options []acp.PermissionOption, outcome acp.RequestPermissionOutcome) string {
	sel := outcome.Selected
	if sel == nil {
		return "cancelled"
	}
	for _, o := range options {
		if o.OptionID == sel.OptionID {
			return string(o.Kind)
		}
	}
	return "unknown"
}
