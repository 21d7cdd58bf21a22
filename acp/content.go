package acp

import (
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// ContentBlock is one piece of content in a prompt, a message chunk or a tool call,
// discriminated by "type" and compatible with MCP content. Exactly one field is set.
// Prompts may only use the kinds the agent's PromptCapabilities allow; updates may use any.
type ContentBlock struct {
	Text         *TextContent      // "text": Markdown text, always allowed in prompts
	Image        *ImageContent     // "image": gated by PromptCapabilities.Image
	Audio        *AudioContent     // "audio": gated by PromptCapabilities.Audio
	ResourceLink *ResourceLink     // "resource_link": always allowed in prompts
	Resource     *EmbeddedResource // "resource": gated by PromptCapabilities.EmbeddedContext
	Unknown      json.RawMessage   // any other type, kept verbatim
}

// TextBlock returns a text content block.
func TextBlock(text string) ContentBlock { return ContentBlock{Text: &TextContent{Text: text}} }

// ImageBlock returns an image content block from base64 data.
func ImageBlock(base64Data, mimeType string) ContentBlock {
	return ContentBlock{Image: &ImageContent{Data: base64Data, MIMEType: mimeType}}
}

// ResourceLinkBlock returns a link to a resource the agent can read itself.
func ResourceLinkBlock(name, uri string) ContentBlock {
	return ContentBlock{ResourceLink: &ResourceLink{Name: name, URI: uri}}
}

// AsText returns the text of a text block, and false for every other kind.
func (b ContentBlock) AsText() (string, bool) {
	if b.Text == nil {
		return "", false
	}
	return b.Text.Text, true
}

// Kind returns the block's type, also for an unknown one.
func (b ContentBlock) Kind() string {
	switch {
	case b.Text != nil:
		return "text"
	case b.Image != nil:
		return "image"
	case b.Audio != nil:
		return "audio"
	case b.ResourceLink != nil:
		return "resource_link"
	case b.Resource != nil:
		return "resource"
	case b.Unknown != nil:
		return unknownKind(b.Unknown, "type")
	}
	return ""
}

// IsZero reports whether no variant is set.
func (b ContentBlock) IsZero() bool {
	return b.Text == nil && b.Image == nil && b.Audio == nil && b.ResourceLink == nil &&
		b.Resource == nil && b.Unknown == nil
}

func (b ContentBlock) MarshalJSON() ([]byte, error) { return b.AppendJSON(newBuffer()) }

// AppendJSON appends what MarshalJSON returns to buf: the variant's members written
// into buf, an unknown variant compacted (as encoding/json would).
func (b ContentBlock) AppendJSON(buf []byte) ([]byte, error) {
	switch {
	case b.Text != nil:
		return b.Text.appendMembers(buf, "type", "text")
	case b.Image != nil:
		return b.Image.appendMembers(buf, "type", "image")
	case b.Audio != nil:
		return b.Audio.appendMembers(buf, "type", "audio")
	case b.ResourceLink != nil:
		return b.ResourceLink.appendMembers(buf, "type", "resource_link")
	case b.Resource != nil:
		return b.Resource.appendMembers(buf, "type", "resource")
	case b.Unknown != nil:
		return json.AppendCompact(buf, b.Unknown)
	}
	return nil, errEmptyUnion("ContentBlock")
}

func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	kind, _, err := readKind("ContentBlock", data, "type")
	if err != nil {
		return err
	}
	*b = ContentBlock{}
	switch string(kind) {
	case "text":
		b.Text = new(TextContent)
		return b.Text.decodeMembers(data, "type")
	case "image":
		b.Image = new(ImageContent)
		return b.Image.decodeMembers(data, "type")
	case "audio":
		b.Audio = new(AudioContent)
		return b.Audio.decodeMembers(data, "type")
	case "resource_link":
		b.ResourceLink = new(ResourceLink)
		return b.ResourceLink.decodeMembers(data, "type")
	case "resource":
		b.Resource = new(EmbeddedResource)
		return b.Resource.decodeMembers(data, "type")
	}
	b.Unknown, err = unknownVariant(data)
	return err
}

// TextContent is a text block: Markdown.
type TextContent struct {
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
	Extra       Extra        `json:"-"`
}

// ImageContent is an image block.
type ImageContent struct {
	Data        string       `json:"data"` // base64
	MIMEType    string       `json:"mimeType"`
	URI         string       `json:"uri,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
	Extra       Extra        `json:"-"`
}

// AudioContent is an audio block.
type AudioContent struct {
	Data        string       `json:"data"` // base64
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
	Extra       Extra        `json:"-"`
}

// ResourceLink points at a resource the agent can fetch itself.
type ResourceLink struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"` // bytes; a pointer because 0 is a size
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
	Extra       Extra        `json:"-"`
}

// EmbeddedResource carries a resource's contents inline, such as an open editor buffer.
type EmbeddedResource struct {
	Resource    EmbeddedResourceResource `json:"resource"`
	Annotations *Annotations             `json:"annotations,omitempty"`
	Meta        Meta                     `json:"_meta,omitzero"`
	Extra       Extra                    `json:"-"`
}

// EmbeddedResourceResource is the contents of an embedded resource: text or a base64
// blob. It has no discriminator: a "text" member makes it text, a "blob" member a blob.
type EmbeddedResourceResource struct {
	Text    *TextResourceContents
	Blob    *BlobResourceContents
	Unknown json.RawMessage // neither text nor blob
}

// Kind returns "text", "blob", or "" for an unknown shape.
func (r EmbeddedResourceResource) Kind() string {
	switch {
	case r.Text != nil:
		return "text"
	case r.Blob != nil:
		return "blob"
	}
	return ""
}

// IsZero reports whether no variant is set.
func (r EmbeddedResourceResource) IsZero() bool {
	return r.Text == nil && r.Blob == nil && r.Unknown == nil
}

func (r EmbeddedResourceResource) MarshalJSON() ([]byte, error) {
	switch {
	case r.Text != nil:
		return r.Text.encodeMembers("", "")
	case r.Blob != nil:
		return r.Blob.encodeMembers("", "")
	case r.Unknown != nil:
		return r.Unknown, nil
	}
	return nil, errEmptyUnion("EmbeddedResourceResource")
}

func (r *EmbeddedResourceResource) UnmarshalJSON(data []byte) error {
	if !isObject(data) {
		return errNotObject("EmbeddedResourceResource")
	}
	*r = EmbeddedResourceResource{}
	switch {
	case json.Member(data, "text") != nil:
		r.Text = new(TextResourceContents)
		return r.Text.decodeMembers(data, "")
	case json.Member(data, "blob") != nil:
		r.Blob = new(BlobResourceContents)
		return r.Blob.decodeMembers(data, "")
	}
	var err error
	r.Unknown, err = unknownVariant(data)
	return err
}

// TextResourceContents is a text resource.
type TextResourceContents struct {
	URI      string `json:"uri"`
	Text     string `json:"text"`
	MIMEType string `json:"mimeType,omitempty"`
	Meta     Meta   `json:"_meta,omitzero"`
	Extra    Extra  `json:"-"`
}

// BlobResourceContents is a binary resource.
type BlobResourceContents struct {
	URI      string `json:"uri"`
	Blob     string `json:"blob"` // base64
	MIMEType string `json:"mimeType,omitempty"`
	Meta     Meta   `json:"_meta,omitzero"`
	Extra    Extra  `json:"-"`
}

// Annotations tell the client how to use or display content.
type Annotations struct {
	Audience     []Role   `json:"audience,omitzero"`
	LastModified string   `json:"lastModified,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	Meta         Meta     `json:"_meta,omitzero"`
	Extra        Extra    `json:"-"`
}

// Role is who content is meant for.
type Role string

const (
	RoleAssistant Role = "assistant"
	RoleUser      Role = "user"
)

// PromptText flattens prompt blocks into text, for agents that work on text: text as it
// is, an embedded text resource with its URI and contents, a resource link as its URI.
// Images, audio and binary resources are left out.
func PromptText(blocks []ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Resource != nil && b.Resource.Resource.Text != nil:
			r := b.Resource.Resource.Text
			parts = append(parts, fmt.Sprintf("<file uri=%q>\n%s\n</file>", r.URI, r.Text))
		case b.ResourceLink != nil:
			parts = append(parts, b.ResourceLink.URI)
		}
	}
	return strings.Join(parts, "\n")
}
