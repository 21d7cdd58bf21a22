package permission

import (
	"strings"

	"github.com/parley-acp/parley/acp"
)

// ChooseOption returns the offered option of the given kind, and whether there is one.
//
// It matches the kind exactly and never looks at positions or ids otherwise: option ids are
// the agent's own (codex-acp offers accept_execpolicy_amendment, reject_permissions...),
// and an option of a kind parley does not know is never chosen, so it can never stand in
// for an allow. Asking for a kind that is not one of the four ACP kinds finds nothing.
//
// When several options share the kind, the first one whose id and name do not look like
// they end the turn wins (codex-acp has offered two reject_once options, "decline" and
// "cancel", the second of which interrupts the turn); if all of them look alike, the
// first of them.
//
// An option whose id another option shares is never chosen: an answer with that id
// could be read as either of them (the same id for a reject and an allow).
func ChooseOption(options []acp.PermissionOption, kind acp.PermissionOptionKind) (acp.PermissionOption, bool) {
	if !knownKind(kind) {
		return acp.PermissionOption{}, false
	}
	var first *acp.PermissionOption
	for i := range options {
		o := &options[i]
		if o.Kind != kind || sharesID(options, i) {
			continue
		}
		if !looksLikeAbort(o) {
			return *o, true
		}
		if first == nil {
			first = o
		}
	}
	if first == nil {
		return acp.PermissionOption{}, false
	}
	return *first, true
}

func knownKind(kind acp.PermissionOptionKind) bool {
	switch kind {
	case acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways,
		acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways:
		return true
	}
	return false
}

// abortWords are what an option that ends the turn, rather than just this call, tends to
// be called.
var abortWords = []string{"abort", "cancel", "stop", "interrupt", "terminate", "halt"}

func looksLikeAbort(o *acp.PermissionOption) bool {
	text := strings.ToLower(string(o.OptionID) + " " + o.Name)
	for _, w := range abortWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// firstOf returns the option of the first kind in kinds that is offered.
func firstOf(options []acp.PermissionOption, kinds ...acp.PermissionOptionKind) (acp.PermissionOption, bool) {
	for _, k := range kinds {
		if o, ok := ChooseOption(options, k); ok {
			return o, true
		}
	}
	return acp.PermissionOption{}, false
}

// refusal is the outcome that refuses this call: a reject option, reject_once first
// unless the refusal is meant to last (then reject_always first).
//
// A refusal falls back to the other reject kind rather than to cancelled: ACP requires a
// denial to select a reject option, and cancelled ends the whole turn. Only when the agent
// offers no reject option at all is the refusal answered cancelled: a refusal then has
// no form that does not end the turn (ACP: the cancelled outcome means "the turn was
// cancelled").
func refusal(options []acp.PermissionOption, lasting bool) acp.RequestPermissionOutcome {
	kinds := []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways}
	if lasting {
		kinds[0], kinds[1] = kinds[1], kinds[0]
	}
	if o, ok := firstOf(options, kinds...); ok {
		return acp.SelectedOutcome(o.OptionID)
	}
	return acp.CancelledOutcome()
}

// sharesID reports whether another option has the id of options[i].
func sharesID(options []acp.PermissionOption, i int) bool {
	for j := range options {
		if j != i && options[j].OptionID == options[i].OptionID {
			return true
		}
	}
	return false
}

// duplicateID returns an option id offered more than once, if any: an answer with it
// could not say which option it means.
func duplicateID(options []acp.PermissionOption) (acp.PermissionOptionID, bool) {
	seen := map[acp.PermissionOptionID]bool{}
	for _, o := range options {
		if seen[o.OptionID] {
			return o.OptionID, true
		}
		seen[o.OptionID] = true
	}
	return "", false
}

// allowed reports whether out selects an allow option.
func allowed(options []acp.PermissionOption, out acp.RequestPermissionOutcome) bool {
	if out.Selected == nil {
		return false
	}
	for _, o := range options {
		if o.OptionID == out.Selected.OptionID {
			return o.Kind == acp.PermissionOptionKindAllowOnce || o.Kind == acp.PermissionOptionKindAllowAlways
		}
	}
	return false
}

// Allows reports whether out selects an allow option of options.
func Allows(options []acp.PermissionOption, out acp.RequestPermissionOutcome) bool {
	return allowed(options, out)
}
