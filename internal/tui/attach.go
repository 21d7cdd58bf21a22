package tui

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
)

// What a prompt carries besides its text: the files it mentions with @path (inside the
// workspace) and the images whose paths it holds (a file dragged onto a terminal is
// pasted as its path). A file goes as its content where the agent takes embedded
// context and it is small text, else as a link the agent reads itself; an image goes as
// image content where the agent takes images.

const (
	maxEmbeddedText = 256 << 10
	maxImage        = 10 << 20
)

// attachment is one block added to a prompt, and how the transcript names it.
type attachment struct {
	block acp.ContentBlock
	label string
}

// promptContent builds the prompt's blocks from the composer's text. notes says what was
// not attached and why.
func promptContent(text, root string, caps acp.PromptCapabilities) (blocks []acp.ContentBlock, labels, notes []string) {
	blocks = append(blocks, acp.TextBlock(text))
	seen := map[string]bool{}
	for _, tok := range pathTokens(text) {
		mention := strings.HasPrefix(tok, "@")
		p := strings.TrimPrefix(tok, "@")
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			if strings.HasPrefix(p, "~/") {
				if home, err := os.UserHomeDir(); err == nil {
					p = filepath.Join(home, p[2:])
				}
			} else {
				p = filepath.Join(root, p)
			}
		}
		p = filepath.Clean(p)
		if seen[p] {
			continue
		}
		mime := imageType(p)
		if !mention && mime == "" {
			continue // a plain word: only images are taken by their path alone
		}
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() {
			if mention && err == nil {
				notes = append(notes, fmt.Sprintf("%s is not a file: not attached", tok))
			}
			continue
		}
		seen[p] = true
		if mime != "" {
			if !caps.Image {
				notes = append(notes, fmt.Sprintf("%s: this agent does not take images; sent as its path only", displayName(p, root)))
				continue
			}
			if info.Size() > maxImage {
				notes = append(notes, fmt.Sprintf("%s: larger than %d MiB, not attached", displayName(p, root), maxImage>>20))
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %v", displayName(p, root), err))
				continue
			}
			b := acp.ImageBlock(base64.StdEncoding.EncodeToString(data), mime)
			b.Image.URI = fileURI(p)
			blocks = append(blocks, b)
			labels = append(labels, "image "+displayName(p, root))
			continue
		}
		if !inside(p, root) {
			notes = append(notes, fmt.Sprintf("%s is outside the workspace: not attached", tok))
			continue
		}
		blocks = append(blocks, fileBlock(p, root, info.Size(), caps))
		labels = append(labels, "file "+displayName(p, root))
	}
	return blocks, labels, notes
}

// fileBlock is a file as embedded text, or as a link.
func fileBlock(p, root string, size int64, caps acp.PromptCapabilities) acp.ContentBlock {
	uri := fileURI(p)
	if caps.EmbeddedContext && size <= maxEmbeddedText {
		if data, err := os.ReadFile(p); err == nil && utf8.Valid(data) && !strings.ContainsRune(string(data), 0) {
			return acp.ContentBlock{Resource: &acp.EmbeddedResource{Resource: acp.EmbeddedResourceResource{
				Text: &acp.TextResourceContents{URI: uri, Text: string(data)},
			}}}
		}
	}
	b := acp.ResourceLinkBlock(displayName(p, root), uri)
	b.ResourceLink.Size = &size
	return b
}

func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

func inside(p, root string) bool {
	rp, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	rr, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(rr, rp)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
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
