// Package agents knows which ACP agents parley can start and how: the built-in ones and
// command lines given by the user.
package agents

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/agentproc"
)

// builtins are the agents parley knows by name. eliza runs this very binary.
var builtins = map[string]func() (agentproc.Spec, error){
	"eliza": func() (agentproc.Spec, error) {
		self, err := os.Executable()
		if err != nil {
			return agentproc.Spec{}, fmt.Errorf("finding parley's own binary for eliza: %w", err)
		}
		return agentproc.Spec{Command: self, Args: []string{"eliza"}}, nil
	},
}

// Names lists the agents known by name.
func Names() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns how to start the named agent.
func Lookup(name string) (agentproc.Spec, error) {
	start, ok := builtins[name]
	if !ok {
		return agentproc.Spec{}, fmt.Errorf("unknown agent %q; known agents: %s (or give a command with --agent-command)", name, strings.Join(Names(), ", "))
	}
	return start()
}

// ParseCommand splits a command line the way a POSIX shell splits words: blanks separate
// words, single quotes keep everything literal, double quotes keep blanks, and a
// backslash escapes the next character. It does not expand anything.
func ParseCommand(line string) (agentproc.Spec, error) {
	words, err := splitWords(line)
	if err != nil {
		return agentproc.Spec{}, err
	}
	if len(words) == 0 {
		return agentproc.Spec{}, errors.New("the agent command is empty")
	}
	return agentproc.Spec{Command: words[0], Args: words[1:]}, nil
}

func splitWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated ' in the agent command")
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, errors.New(`unterminated " in the agent command`)
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}
