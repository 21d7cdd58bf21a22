package safety

import "strings"

// compoundValue judges the value a declaration (declare, local, typeset, readonly…) is
// given as one quoted word: Bash parses a value in parentheses again, as the compound
// assignment NAME=(…) it spells, and runs the substitutions in it
// (declare -a "a=($x)" with x='$(id)' runs id). A literal one is judged as that shell
// code; one only known when it runs is code parley cannot see, as eval "$x" is.
func (a *analyzer) compoundValue(cmd, name string, v word) {
	text := strings.TrimSpace(v.val)
	if !strings.HasPrefix(text, "(") || !strings.HasSuffix(text, ")") {
		return
	}
	if v.lit {
		a.code(cmd, name+"="+text)
		return
	}
	a.add(Critical, cmd, "declares an array from text only known when it runs ("+v.src+"), which Bash parses again as code")
}
