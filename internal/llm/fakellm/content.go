package fakellm

import (
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// textContent is message content that clients send either as a string or as an array
// of parts ({"type":"text","text":…}, Responses' input_text and output_text); it keeps
// the text of the parts, joined.
type textContent string

func (c *textContent) UnmarshalJSON(data []byte) error {
	text, err := partsText(data)
	*c = textContent(text)
	return err
}

// partsText is the text of content given as null, a string or an array of parts; parts
// without text (images, files) count as nothing.
func partsText(data []byte) (string, error) {
	var s *string
	if err := json.Unmarshal(data, &s); err == nil {
		if s == nil {
			return "", nil
		}
		return *s, nil
	}
	var parts []struct {
		Text    *string         `json:"text"`
		Content json.RawMessage `json:"content"` // Anthropic tool_result blocks nest
	}
	if err := json.Unmarshal(data, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		switch {
		case p.Text != nil:
			b.WriteString(*p.Text)
		case len(p.Content) > 0:
			text, err := partsText(p.Content)
			if err != nil {
				return "", err
			}
			b.WriteString(text)
		}
	}
	return b.String(), nil
}
