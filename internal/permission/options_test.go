package permission

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parley-acp/parley/acp"
)

const (
	allowOnce    = acp.PermissionOptionKindAllowOnce
	allowAlways  = acp.PermissionOptionKindAllowAlways
	rejectOnce   = acp.PermissionOptionKindRejectOnce
	rejectAlways = acp.PermissionOptionKindRejectAlways
)

func opt(id string, kind acp.PermissionOptionKind, name string) acp.PermissionOption {
	return acp.PermissionOption{OptionID: acp.PermissionOptionID(id), Name: name, Kind: kind}
}

// Option sets with agent-defined ids that say nothing about their kinds, as real agents
// send them.
var (
	// codexLike has every kind, two reject_once (one of which ends the turn, as codex-acp's
	// "cancel") and an option of a kind that ACP does not define.
	codexLike = []acp.PermissionOption{
		opt("approved", allowOnce, "Yes"),
		opt("accept_execpolicy_amendment", allowAlways, "Yes, and don't ask again for this command"),
		opt("cancel", rejectOnce, "No, and tell Codex what to do differently"),
		opt("decline", rejectOnce, "No, continue without running it"),
		opt("reject_permissions", rejectAlways, "No, never"),
		opt("allow_persistent", "allow_persistent", "Allow forever"),
	}
	// abortOnly offers a refusal only in the form that ends the turn.
	abortOnly = []acp.PermissionOption{
		opt("accept", allowOnce, "Yes"),
		opt("cancel", rejectOnce, "No, and stop"),
	}
	// noReject offers no way to refuse.
	noReject = []acp.PermissionOption{
		opt("go", allowOnce, "Run it"),
		opt("go_always", allowAlways, "Always run it"),
	}
	// alwaysOnly offers only the lasting kinds.
	alwaysOnly = []acp.PermissionOption{
		opt("allow_permissions_session", allowAlways, "Allow for this session"),
		opt("reject_permissions", rejectAlways, "Never"),
	}
	// onceOnly offers only the one-off kinds.
	onceOnly = []acp.PermissionOption{
		opt("ok", allowOnce, "OK"),
		opt("nope", rejectOnce, "Nope"),
	}
	// unknownAllows looks like it allows, but by kinds parley does not know.
	unknownAllows = []acp.PermissionOption{
		opt("allow_once", "Allow_Once", "Allow once"),
		opt("allow_always", "allow_persistent", "Allow always"),
		opt("allow", "", "Allow"),
		opt("reject_once", rejectOnce, "Reject"),
	}
)

// shuffles returns options in several orders: as given, reversed and some random ones.
func shuffles(options []acp.PermissionOption) [][]acp.PermissionOption {
	out := [][]acp.PermissionOption{slices.Clone(options)}
	rev := slices.Clone(options)
	slices.Reverse(rev)
	out = append(out, rev)
	r := rand.New(rand.NewPCG(1, 2))
	for range 6 {
		s := slices.Clone(options)
		r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		out = append(out, s)
	}
	return out
}

func TestChooseOption(t *testing.T) {
	for _, tc := range []struct {
		name    string
		options []acp.PermissionOption
		kind    acp.PermissionOptionKind
		want    string // "" for none
	}{
		{"allow once by kind", codexLike, allowOnce, "approved"},
		{"allow always by kind", codexLike, allowAlways, "accept_execpolicy_amendment"},
		{"reject once: the one that does not end the turn", codexLike, rejectOnce, "decline"},
		{"reject always", codexLike, rejectAlways, "reject_permissions"},
		{"the aborting reject when it is the only one", abortOnly, rejectOnce, "cancel"},
		{"no reject offered", noReject, rejectOnce, ""},
		{"no allow once offered", alwaysOnly, allowOnce, ""},
		{"a kind spelled differently is not that kind", unknownAllows, allowOnce, ""},
		{"unknown kinds are never chosen as allow_always", unknownAllows, allowAlways, ""},
		{"an unknown kind asked for finds nothing", codexLike, "allow_persistent", ""},
		{"the empty kind finds nothing", unknownAllows, "", ""},
		{"no options", nil, allowOnce, ""},
	} {
		for _, options := range shuffles(tc.options) {
			got, ok := ChooseOption(options, tc.kind)
			if ok != (tc.want != "") || string(got.OptionID) != tc.want {
				t.Errorf("%s: ChooseOption(%v, %s) = %q, %v; want %q", tc.name, ids(options), tc.kind, got.OptionID, ok, tc.want)
			}
			if ok && (got.Kind != tc.kind || !slices.ContainsFunc(options, func(o acp.PermissionOption) bool { return o.OptionID == got.OptionID })) {
				t.Errorf("%s: chose %+v, not an offered %s option", tc.name, got, tc.kind)
			}
		}
	}
}

func TestChooseOptionDuplicates(t *testing.T) {
	// Several options of one kind, none of which looks like it aborts: the first.
	options := []acp.PermissionOption{
		opt("deny_a", rejectOnce, "No"),
		opt("deny_b", rejectOnce, "Not now"),
		opt("abort_turn", rejectOnce, "Abort"),
	}
	if got, _ := ChooseOption(options, rejectOnce); got.OptionID != "deny_a" {
		t.Errorf("got %s, want the first non-aborting deny_a", got.OptionID)
	}
	options[0], options[2] = options[2], options[0]
	if got, _ := ChooseOption(options, rejectOnce); got.OptionID != "deny_b" {
		t.Errorf("got %s, want deny_b (abort_turn first, then deny_b)", got.OptionID)
	}
	// All of them look like they abort (by id or by name): the first of them.
	all := []acp.PermissionOption{
		opt("x1", rejectOnce, "Stop the agent"),
		opt("cancel", rejectOnce, "No"),
		opt("x3", rejectOnce, "Interrupt"),
	}
	if got, _ := ChooseOption(all, rejectOnce); got.OptionID != "x1" {
		t.Errorf("got %s, want the first, x1", got.OptionID)
	}
}

// An id two options share is never chosen, whatever the kind asked for.
func TestChooseOptionSharedIDs(t *testing.T) {
	options := []acp.PermissionOption{opt("x", allowOnce, "Yes"), opt("x", rejectOnce, "No"), opt("n", rejectAlways, "Never")}
	for _, kind := range []acp.PermissionOptionKind{allowOnce, rejectOnce} {
		if got, ok := ChooseOption(options, kind); ok {
			t.Errorf("%s: chose %s, which two options share", kind, got.OptionID)
		}
	}
	if got, ok := ChooseOption(options, rejectAlways); !ok || got.OptionID != "n" {
		t.Errorf("reject_always: %s %v, want n", got.OptionID, ok)
	}
}

func ids(options []acp.PermissionOption) []string {
	var out []string
	for _, o := range options {
		out = append(out, string(o.OptionID))
	}
	return out
}
