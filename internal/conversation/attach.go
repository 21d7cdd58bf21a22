package conversation

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
)

// What the user attaches to a prompt reaches the agent as ACP content, as far as the
// agent's prompt capabilities allow: an image as image content (image), a text file
// embedded whole (embeddedContext), anything else as a link to the file (resource_link,
// which every agent takes; the agent reads it itself, through parley's fs/* where the
// file is in the workspace). The user chose the file, so it may be anywhere the user can
// read: its content goes to the agent only when it is embedded.

// Limits on what is embedded; a larger file is linked instead.
const (
	maxEmbeddedText  = 1 << 20
	maxEmbeddedImage = 10 << 20
)

// imageTypes are the image types agents take.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// Attach returns the content blocks that carry the file at path (absolute, or relative to
// the session's working directory) to this session's agent, and a note when the agent
// gets less than the file (a link where an image or the text could not go). An error
// means the file cannot be attached at all (it does not exist, it is not a regular
// file).
func (s Session) Attach(path string) (acp.ContentBlock, string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.Cwd, path)
	}
	path = filepath.Clean(path)
	f, err := os.Open(path)
	if err != nil {
		return acp.ContentBlock{}, "", fmt.Errorf("attaching %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return acp.ContentBlock{}, "", fmt.Errorf("attaching %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return acp.ContentBlock{}, "", fmt.Errorf("attaching %s: not a regular file", path)
	}
	size := info.Size()
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
	link := acp.ContentBlock{ResourceLink: &acp.ResourceLink{URI: uri, Name: filepath.Base(path), Size: &size}}
	caps := s.Agent.Capabilities.PromptCapabilities

	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	mimeType := mime.TypeByExtension(filepath.Ext(path))
	if sniffed := http.DetectContentType(head[:n]); imageTypes[sniffed] {
		mimeType = sniffed
	}
	if i := strings.IndexByte(mimeType, ';'); i >= 0 {
		mimeType = mimeType[:i]
	}
	if mimeType == "" && looksLikeText(head[:n]) {
		mimeType = "text/plain"
	}
	link.ResourceLink.MIMEType = mimeType

	if imageTypes[mimeType] {
		switch {
		case !caps.Image:
			return link, fmt.Sprintf("%s goes as a link: this agent does not take images", filepath.Base(path)), nil
		case size > maxEmbeddedImage:
			return link, fmt.Sprintf("%s goes as a link: it is over %d MiB", filepath.Base(path), maxEmbeddedImage>>20), nil
		}
		data, err := readRest(f, head[:n], maxEmbeddedImage)
		if err != nil {
			return acp.ContentBlock{}, "", fmt.Errorf("attaching %s: %w", path, err)
		}
		img := acp.ImageBlock(base64.StdEncoding.EncodeToString(data), mimeType)
		img.Image.URI = uri
		return img, "", nil
	}
	if !caps.EmbeddedContext || size > maxEmbeddedText {
		return link, "", nil
	}
	data, err := readRest(f, head[:n], maxEmbeddedText)
	if err != nil {
		return acp.ContentBlock{}, "", fmt.Errorf("attaching %s: %w", path, err)
	}
	if !utf8.Valid(data) || strings.ContainsRune(string(data), 0) {
		return link, "", nil // not text: the agent reads it itself
	}
	if mimeType == "" {
		mimeType = "text/plain"
	}
	return acp.ContentBlock{Resource: &acp.EmbeddedResource{Resource: acp.EmbeddedResourceResource{
		Text: &acp.TextResourceContents{URI: uri, Text: string(data), MIMEType: mimeType},
	}}}, "", nil
}

// readRest returns head and what follows it in f, refusing more than limit bytes (the
// file grew since it was measured).
func readRest(f io.Reader, head []byte, limit int64) ([]byte, error) {
	rest, err := io.ReadAll(io.LimitReader(f, limit-int64(len(head))+1))
	if err != nil {
		return nil, err
	}
	data := append(head, rest...)
	if int64(len(data)) > limit {
		return nil, errors.New("it grew while it was read")
	}
	return data, nil
}

// looksLikeText reports whether the start of a file reads as text: UTF-8 (a character cut
// at the end aside) without NUL bytes.
func looksLikeText(head []byte) bool {
	for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return utf8.Valid(head) && !strings.ContainsRune(string(head), 0)
}
