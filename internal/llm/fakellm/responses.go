package fakellm

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

// OpenAI Responses (POST /v1/responses): the input is a list of items (messages,
// function calls and their outputs), the reply a stream of named events.

type responsesTool struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Parameters map[string]any  `json:"parameters"`
	Tools      []responsesTool `json:"tools"` // type "namespace"
}

type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   textContent     `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
}

func responsesConversation(data []byte, rec *Recorded) error {
	var req struct {
		Instructions string          `json:"instructions"`
		Input        json.RawMessage `json:"input"`
		Tools        []responsesTool `json:"tools"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return err
	}
	addResponsesTools(rec, req.Tools, "")
	if req.Instructions != "" {
		rec.Messages = append(rec.Messages, llm.Message{Role: "system", Content: req.Instructions})
	}
	var text string
	if json.Unmarshal(req.Input, &text) == nil { // the input may be one user message
		rec.Messages = append(rec.Messages, llm.Message{Role: "user", Content: text})
		return nil
	}
	var items []responsesItem
	if err := json.Unmarshal(req.Input, &items); err != nil {
		return fmt.Errorf("input: %w", err)
	}
	for _, it := range items {
		m, ok, err := it.message()
		if err != nil {
			return err
		}
		if ok {
			rec.Messages = append(rec.Messages, m)
		}
	}
	return nil
}

func addResponsesTools(rec *Recorded, tools []responsesTool, namespace string) {
	for _, t := range tools {
		switch t.Type {
		case "namespace":
			addResponsesTools(rec, t.Tools, t.Name)
		case "function", "custom":
			rec.Tools = append(rec.Tools, Tool{Name: t.Name, Kind: t.Type, Namespace: namespace, Parameters: t.Parameters})
		default: // built-ins (web_search, local_shell, …): a name for the script to see
			name := t.Name
			if name == "" {
				name = t.Type
			}
			rec.Tools = append(rec.Tools, Tool{Name: name, Kind: t.Type, Namespace: namespace})
		}
	}
}

// message is the item in llm's form; reasoning and other items are not part of it.
func (it responsesItem) message() (llm.Message, bool, error) {
	switch it.Type {
	case "", "message":
		role := it.Role
		if role == "developer" {
			role = "system"
		}
		return llm.Message{Role: role, Content: string(it.Content)}, true, nil
	case "function_call":
		return llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: it.CallID, Name: it.Name, Arguments: json.RawMessage(it.Arguments)}}}, true, nil
	case "custom_tool_call":
		input, err := json.Marshal(it.Input)
		return llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: it.CallID, Name: it.Name, Arguments: input}}}, true, err
	case "function_call_output", "custom_tool_call_output":
		out, err := partsText(it.Output)
		if err != nil {
			return llm.Message{}, false, fmt.Errorf("%s output: %w", it.Type, err)
		}
		return llm.Message{Role: "tool", ToolCallID: it.CallID, Content: out}, true, nil
	}
	return llm.Message{}, false, nil
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	rec, reply := s.prepare(w, r, "responses")
	if reply == nil {
		return
	}
	sw := newStream(w, "text/event-stream")
	id := fmt.Sprintf("resp_%d", s.count())
	send := func(typ string, ev map[string]any) bool {
		ev["type"] = typ
		sw.event(typ, ev)
		return s.pause(r.Context(), reply.Delay)
	}
	if !send("response.created", map[string]any{"response": map[string]any{"id": id, "status": "in_progress"}}) {
		return
	}
	index := 0
	if len(reply.Thinking) > 0 {
		item := map[string]any{"type": "reasoning", "id": id + "_rs", "summary": []any{}}
		if !send("response.output_item.added", map[string]any{"output_index": index, "item": item}) {
			return
		}
		for _, t := range reply.Thinking {
			if !send("response.reasoning_summary_text.delta", map[string]any{"item_id": item["id"], "output_index": index, "summary_index": 0, "delta": t}) {
				return
			}
		}
		item["summary"] = []any{map[string]any{"type": "summary_text", "text": strings.Join(reply.Thinking, "")}}
		send("response.output_item.done", map[string]any{"output_index": index, "item": item})
		index++
	}
	if len(reply.Content) > 0 {
		item := map[string]any{"type": "message", "role": "assistant", "id": id + "_msg", "status": "in_progress", "content": []any{}}
		if !send("response.output_item.added", map[string]any{"output_index": index, "item": item}) {
			return
		}
		for _, c := range reply.Content {
			if !send("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": index, "content_index": 0, "delta": c}) {
				return
			}
		}
		item["status"] = "completed"
		item["content"] = []any{map[string]any{"type": "output_text", "text": strings.Join(reply.Content, ""), "annotations": []any{}}}
		send("response.output_item.done", map[string]any{"output_index": index, "item": item})
		index++
	}
	for i, tc := range reply.ToolCalls {
		if !send("response.output_item.done", map[string]any{"output_index": index, "item": responsesCall(rec, tc, fmt.Sprintf("%s_call%d", id, i))}) {
			return
		}
		index++
	}
	if reply.Raw != "" {
		sw.raw(reply.Raw)
		return
	}
	if !s.hold(r.Context(), reply) {
		return
	}
	u := usage(rec, reply)
	send("response.completed", map[string]any{"response": map[string]any{"id": id, "status": "completed",
		"usage": map[string]int{"input_tokens": u.PromptTokens, "output_tokens": u.CompletionTokens, "total_tokens": u.PromptTokens + u.CompletionTokens}}})
}

// responsesCall is a tool call as an output item: a custom_tool_call with text input when
// the request offered the tool as a custom one, else a function_call with its arguments
// as a string of JSON (and the namespace the tool was offered in).
func responsesCall(rec *Recorded, tc llm.ToolCall, fallbackID string) map[string]any {
	id := tc.ID
	if id == "" {
		id = fallbackID
	}
	if t, ok := rec.Tool(tc.Name); ok && t.Kind == "custom" {
		var input string
		if json.Unmarshal(tc.Arguments, &input) != nil {
			input = string(tc.Arguments)
		}
		return map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": id, "name": tc.Name, "input": input, "status": "completed"}
	}
	item := map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": tc.Name, "arguments": string(args(tc.Arguments)), "status": "completed"}
	if t, ok := rec.Tool(tc.Name); ok && t.Namespace != "" {
		item["namespace"] = t.Namespace // a tool offered in a namespace is called in it
	}
	return item
}
