package permission

import (
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/safety"
)

// configured returns what the user's rules say about s, "" when none applies.
//
// A call that is not a command is matched by its key: the last matching rule wins. A
// command is matched by what runs: each simple command the line runs (nested ones in
// sh -c, eval, xargs, find -exec... included) in three forms, "execute:" followed by
//
//   - the command with its assignments and wrappers ("execute:sudo timeout 60 git push"),
//   - the command without them ("execute:git push"),
//   - the command without the options that only say where or how the program runs
//     ("git -C . --no-pager push" as "execute:git push"),
//
// and the line as a whole. For each form the last matching rule wins. A reject for any
// form of any command (or the line) refuses; else an ask asks; else the line is allowed
// when every command is allowed in its full form (wrappers included, so that an allow
// for "git status" does not allow "sudo git status") or the whole line is.
func (p *Policy) configured(s Subject) Action {
	if len(p.Rules) == 0 {
		return ""
	}
	if s.Analysis == nil || s.Analysis.Err != nil || len(s.Analysis.Commands) == 0 {
		keys := []string{s.Key}
		if s.Analysis != nil {
			keys = append(keys, execKey(s.Analysis.Line))
		}
		return strongest(p.lastMatching(keys...)...)
	}
	line := p.lastMatching(execKey(s.Analysis.Line))[0]
	allAllowed := true
	var found []Action
	for _, c := range s.Analysis.Commands {
		actions := p.lastMatching(execKey(c.Full()), execKey(c.String()), execKey(safety.JoinArgv(c.Core())))
		found = append(found, actions...)
		allAllowed = allAllowed && actions[0] == ActionAllow
		if (c.RunTime || !c.Literal) && p.couldRefuseOrAsk(c.Patterns()...) {
			// What runs is only known when it runs (git p, $GIT push, eval "$X"): a rule
			// that refuses or asks could be about it, so it is asked about, never allowed.
			found = append(found, ActionAsk)
			allAllowed = false
		}
	}
	switch a := strongest(append(found, line)...); {
	case a == ActionReject || a == ActionAsk:
		return a
	case allAllowed || line == ActionAllow:
		return ActionAllow
	}
	return ""
}

func execKey(s string) string { return string(acp.ToolKindExecute) + ":" + s }

// lastMatching returns, for each key, the action of the last rule that matches it ("" for
// none). A rule with an action parley does not know asks: it is no permission.
func (p *Policy) lastMatching(keys ...string) []Action {
	out := make([]Action, len(keys))
	for k, key := range keys {
		for i := len(p.Rules) - 1; i >= 0; i-- {
			if !matchKey(p.Rules[i].Tool, key) {
				continue
			}
			switch a := p.Rules[i].Action; a {
			case ActionAsk, ActionAllow, ActionReject:
				out[k] = a
			default:
				out[k] = ActionAsk
			}
			break
		}
	}
	return out
}

// couldRefuseOrAsk reports whether a rule that refuses or asks could match a command of
// one of the patterns (see safety.Command.Patterns): some key both patterns match exists.
func (p *Policy) couldRefuseOrAsk(patterns ...string) bool {
	for _, r := range p.Rules {
		if r.Action == ActionAllow {
			continue
		}
		for _, pattern := range patterns {
			if patternsMeet(r.Tool, execKey(pattern)) {
				return true
			}
		}
	}
	return false
}

// patternsMeet reports whether some string matches both patterns (* any run of
// characters, ? any one character): a walk over both at once, remembering the pairs of
// positions already tried, so it takes at most len(a)·len(b) steps.
func patternsMeet(a, b string) bool {
	x, y := []rune(a), []rune(b)
	if len(x)*len(y) > 1<<20 {
		return true // too long to compare: assume they meet (the command is asked about)
	}
	seen := make(map[[2]int]bool)
	var meet func(i, j int) bool
	meet = func(i, j int) bool {
		key := [2]int{i, j}
		if seen[key] {
			return false
		}
		seen[key] = true
		switch {
		case i == len(x) && j == len(y):
			return true
		case i < len(x) && x[i] == '*':
			// The star matches nothing, or what y's next character matches.
			return meet(i+1, j) || j < len(y) && meet(i, j+1)
		case j < len(y) && y[j] == '*':
			return meet(i, j+1) || i < len(x) && meet(i+1, j)
		case i < len(x) && j < len(y) && (x[i] == '?' || y[j] == '?' || x[i] == y[j]):
			return meet(i+1, j+1)
		}
		return false
	}
	return meet(0, 0)
}

// strongest returns the most restrictive of the actions: reject, then ask, then allow.
func strongest(actions ...Action) Action {
	best := Action("")
	rank := map[Action]int{"": 0, ActionAllow: 1, ActionAsk: 2, ActionReject: 3}
	for _, a := range actions {
		if rank[a] > rank[best] {
			best = a
		}
	}
	return best
}

// matchKey reports whether pattern matches key as a whole. In a pattern, * matches any
// run of characters (slashes and colons included) and ? any one character; everything
// else matches itself.
func matchKey(pattern, key string) bool {
	p, k := []rune(pattern), []rune(key)
	// Iterative wildcard matching with one backtrack point: linear in practice.
	pi, ki, star, mark := 0, 0, -1, 0
	for ki < len(k) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == k[ki]):
			pi++
			ki++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ki
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ki = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
