package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parley-acp/parley/acp"
)

// What a prompt carries besides its text: the files it mentions with @path and the images
// whose paths it holds (a file dropped on a terminal is pasted as its path). The
// conversation's Session.Attach makes the blocks, as the agent's prompt capabilities
// allow (an image as image content, small text embedded, anything else as a link).

// attachFunc is Session.Attach: the block for a file, and a note when the agent gets
// less than the file.
type attachFunc func(path string) (acp.ContentBlock, string, error)

// promptContent builds the prompt's blocks from the composer's text; labels name what
// was attached, notes say what was not and why.
func promptContent(text, root string, attach attachFunc) (blocks []acp.ContentBlock, labels, notes []string) {
	blocks = append(blocks, acp.TextBlock(text))
	seen := map[string]bool{}
	for _, tok := range pathTokens(text) {
		mention := strings.HasPrefix(tok, "@")
		p := strings.TrimPrefix(tok, "@")
		if p == "" || (!mention && imageType(p) == "") {
			continue // a plain word: only images are taken by their path alone
		}
		if strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		p = filepath.Clean(p)
		if seen[p] {
			continue
		}
		if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
			if mention && err == nil {
				notes = append(notes, fmt.Sprintf("%s is not a file: not attached", tok))
			}
			continue
		}
		seen[p] = true
		b, note, err := attach(p)
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		if note != "" {
			notes = append(notes, note)
		}
		blocks = append(blocks, b)
		kind := "file"
		if b.Image != nil {
			kind = "image"
		}
		labels = append(labels, kind+" "+displayName(p, root))
	}
	return blocks, labels, notes
}

func displayName(p, root string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// pathTokens splits text into words as a shell would for paths: quotes ('…' or "…")
// and backslash-escaped spaces keep a path with spaces whole (terminals paste dropped
// files that way).
func pathTokens(text string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			if cur.Len() == 0 || cur.String() == "@" {
				quote = r
			} else {
				cur.WriteRune(r)
			}
		case r == '\\' && i+1 < len(rs) && rs[i+1] == ' ':
			cur.WriteRune(' ')
			i++
		case r == ' ' || r == '\n' || r == '\t':
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	// Trailing punctuation is not part of a path typed in a sentence.
	for i, t := range out {
		out[i] = strings.TrimRight(t, ",;:!?)")
	}
	return out
}
