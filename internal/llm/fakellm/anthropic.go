package fakellm

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

// Anthropic Messages (POST /v1/messages, any query): content blocks in, a stream of
// named events out when the request asks to stream, one message object otherwise.

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

func anthropicConversation(data []byte, rec *Recorded) error {
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Type        string         `json:"type"`
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return err
	}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, Tool{Name: t.Name, Kind: "function", Parameters: t.InputSchema})
	}
	if len(req.System) > 0 {
		text, err := partsText(req.System)
		if err != nil {
			return fmt.Errorf("system: %w", err)
		}
		rec.Messages = append(rec.Messages, llm.Message{Role: "system", Content: text})
	}
	for i, m := range req.Messages {
		msgs, err := anthropicMessage(m.Role, m.Content)
		if err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
		rec.Messages = append(rec.Messages, msgs...)
	}
	return nil
}

// anthropicMessage is one message in llm's form: tool results become messages of their
// own (role "tool"), before the rest of the user's text.
func anthropicMessage(role string, content json.RawMessage) ([]llm.Message, error) {
	var text string
	if json.Unmarshal(content, &text) == nil {
		return []llm.Message{{Role: role, Content: text}}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(content, &blocks); err != nil {
		return nil, err
	}
	var out []llm.Message
	main := llm.Message{Role: role}
	var b strings.Builder
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			b.WriteString(bl.Text)
		case "thinking":
			main.Thinking += bl.Thinking
		case "tool_use":
			main.ToolCalls = append(main.ToolCalls, llm.ToolCall{ID: bl.ID, Name: bl.Name, Arguments: bl.Input})
		case "tool_result":
			result, err := partsText(bl.Content)
			if err != nil {
				return nil, fmt.Errorf("tool_result: %w", err)
			}
			out = append(out, llm.Message{Role: "tool", ToolCallID: bl.ToolUseID, Content: result})
		}
	}
	main.Content = b.String()
	if main.Content != "" || main.Thinking != "" || len(main.ToolCalls) > 0 || len(out) == 0 {
		out = append(out, main)
	}
	return out, nil
}

func (s *Server) anthropicCountTokens(w http.ResponseWriter, r *http.Request) {
	rec := s.record(w, r, "anthropic")
	if rec == nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"input_tokens": tokens(rec)})
}

// tokens is a stand-in token count: the words of the conversation.
func tokens(rec *Recorded) int {
	n := 0
	for _, m := range rec.Messages {
		n += len(strings.Fields(m.Content))
	}
	return max(n, 1)
}

func (s *Server) anthropicMessages(w http.ResponseWriter, r *http.Request) {
	rec, reply := s.prepare(w, r, "anthropic")
	if reply == nil {
		return
	}
	id := fmt.Sprintf("msg_fake_%d", s.count())
	stop := "end_turn"
	if len(reply.ToolCalls) > 0 {
		stop = "tool_use"
	}
	u := usage(rec, reply)
	usage := map[string]int{"input_tokens": u.PromptTokens, "output_tokens": u.CompletionTokens}
	if stream, _ := rec.Body["stream"].(bool); !stream {
		if !s.hold(r.Context(), reply) {
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "message", "role": "assistant", "model": rec.Model,
			"content": anthropicBlocks(reply, id), "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	sw := newStream(w, "text/event-stream")
	send := func(typ string, ev map[string]any) bool {
		ev["type"] = typ
		sw.event(typ, ev)
		return s.pause(r.Context(), reply.Delay)
	}
	if !send("message_start", map[string]any{"message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": rec.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": u.PromptTokens, "output_tokens": 0}}}) {
		return
	}
	index := 0
	block := func(start map[string]any, deltas []map[string]any) bool {
		if !send("content_block_start", map[string]any{"index": index, "content_block": start}) {
			return false
		}
		for _, d := range deltas {
			if !send("content_block_delta", map[string]any{"index": index, "delta": d}) {
				return false
			}
		}
		ok := send("content_block_stop", map[string]any{"index": index})
		index++
		return ok
	}
	if len(reply.Thinking) > 0 {
		var deltas []map[string]any
		for _, t := range reply.Thinking {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": t})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": "fake-signature"})
		if !block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, deltas) {
			return
		}
	}
	if len(reply.Content) > 0 {
		var deltas []map[string]any
		for _, c := range reply.Content {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
		}
		if !block(map[string]any{"type": "text", "text": ""}, deltas) {
			return
		}
	}
	for i, tc := range reply.ToolCalls {
		var deltas []map[string]any
		for _, frag := range fragments(string(args(tc.Arguments)), 3) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": frag})
		}
		if !block(map[string]any{"type": "tool_use", "id": toolUseID(tc, id, i), "name": tc.Name, "input": map[string]any{}}, deltas) {
			return
		}
	}
	if reply.Raw != "" {
		sw.raw(reply.Raw)
		return
	}
	if !s.hold(r.Context(), reply) {
		return
	}
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": u.CompletionTokens}})
	send("message_stop", map[string]any{})
}

func toolUseID(tc llm.ToolCall, msgID string, i int) string {
	if tc.ID != "" {
		return tc.ID
	}
	return fmt.Sprintf("toolu_%s_%d", strings.TrimPrefix(msgID, "msg_"), i)
}

// anthropicBlocks is the reply as the content of one message.
func anthropicBlocks(reply *Reply, id string) []any {
	blocks := []any{}
	if len(reply.Thinking) > 0 {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": strings.Join(reply.Thinking, ""), "signature": "fake-signature"})
	}
	if len(reply.Content) > 0 {
		blocks = append(blocks, map[string]any{"type": "text", "text": strings.Join(reply.Content, "")})
	}
	for i, tc := range reply.ToolCalls {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": toolUseID(tc, id, i), "name": tc.Name, "input": args(tc.Arguments)})
	}
	return blocks
}
