package fakellm

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

// Gemini (POST /v1beta/models/MODEL:METHOD): contents of parts in; streamGenerateContent
// answers server-sent events of GenerateContentResponse, generateContent one of them, and
// countTokens a count.

type geminiPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

func geminiConversation(data []byte, rec *Recorded) error {
	var req struct {
		SystemInstruction *geminiContent  `json:"systemInstruction"`
		Contents          []geminiContent `json:"contents"`
		Tools             []struct {
			FunctionDeclarations []struct {
				Name                 string         `json:"name"`
				Parameters           map[string]any `json:"parameters"`
				ParametersJSONSchema map[string]any `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return err
	}
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			params := f.ParametersJSONSchema
			if params == nil {
				params = f.Parameters
			}
			rec.Tools = append(rec.Tools, Tool{Name: f.Name, Kind: "function", Parameters: params})
		}
	}
	if si := req.SystemInstruction; si != nil {
		rec.Messages = append(rec.Messages, geminiMessages("system", si.Parts)...)
	}
	for _, c := range req.Contents {
		role := c.Role
		if role == "model" {
			role = "assistant"
		}
		rec.Messages = append(rec.Messages, geminiMessages(role, c.Parts)...)
	}
	return nil
}

// geminiMessages is one content in llm's form: function responses become tool messages
// (the call's id, or its name when it has none), before the rest of the text.
func geminiMessages(role string, parts []geminiPart) []llm.Message {
	var out []llm.Message
	main := llm.Message{Role: role}
	var text, thought strings.Builder
	for _, p := range parts {
		switch {
		case p.FunctionCall != nil:
			main.ToolCalls = append(main.ToolCalls, llm.ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: p.FunctionCall.Args})
		case p.FunctionResponse != nil:
			id := p.FunctionResponse.ID
			if id == "" {
				id = p.FunctionResponse.Name
			}
			out = append(out, llm.Message{Role: "tool", ToolCallID: id, ToolName: p.FunctionResponse.Name, Content: string(p.FunctionResponse.Response)})
		case p.Thought:
			thought.WriteString(p.Text)
		default:
			text.WriteString(p.Text)
		}
	}
	main.Content, main.Thinking = text.String(), thought.String()
	if main.Content != "" || main.Thinking != "" || len(main.ToolCalls) > 0 || len(out) == 0 {
		out = append(out, main)
	}
	return out
}

func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	_, method, _ := strings.Cut(r.PathValue("call"), ":")
	switch method {
	case "countTokens":
		if rec := s.record(w, r, "gemini"); rec != nil {
			writeJSON(w, http.StatusOK, map[string]int{"totalTokens": tokens(rec)})
		}
	case "generateContent":
		s.geminiGenerate(w, r, false)
	case "streamGenerateContent":
		s.geminiGenerate(w, r, true)
	default:
		s.unknown(w, r)
	}
}

func (s *Server) geminiGenerate(w http.ResponseWriter, r *http.Request, stream bool) {
	rec, reply := s.prepare(w, r, "gemini")
	if reply == nil {
		return
	}
	u := usage(rec, reply)
	response := func(parts []map[string]any, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		resp := map[string]any{"candidates": []any{cand}, "modelVersion": rec.Model, "responseId": fmt.Sprintf("fake-%d", s.count())}
		if last {
			cand["finishReason"] = "STOP"
			resp["usageMetadata"] = map[string]int{"promptTokenCount": u.PromptTokens, "candidatesTokenCount": u.CompletionTokens,
				"totalTokenCount": u.PromptTokens + u.CompletionTokens}
		}
		return resp
	}
	var calls []map[string]any
	for _, tc := range reply.ToolCalls {
		fc := map[string]any{"name": tc.Name, "args": args(tc.Arguments)}
		if tc.ID != "" {
			fc["id"] = tc.ID
		}
		calls = append(calls, map[string]any{"functionCall": fc})
	}
	if !stream {
		var parts []map[string]any
		if len(reply.Thinking) > 0 {
			parts = append(parts, map[string]any{"text": strings.Join(reply.Thinking, ""), "thought": true})
		}
		if len(reply.Content) > 0 {
			parts = append(parts, map[string]any{"text": strings.Join(reply.Content, "")})
		}
		if !s.hold(r.Context(), reply) {
			return
		}
		writeJSON(w, http.StatusOK, response(append(parts, calls...), true))
		return
	}
	sw := newStream(w, "text/event-stream")
	send := func(parts []map[string]any, last bool) bool {
		sw.line("data: ", response(parts, last))
		sw.raw("\n")
		return s.pause(r.Context(), reply.Delay)
	}
	for _, t := range reply.Thinking {
		if !send([]map[string]any{{"text": t, "thought": true}}, false) {
			return
		}
	}
	for _, c := range reply.Content {
		if !send([]map[string]any{{"text": c}}, false) {
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
	if calls == nil {
		calls = []map[string]any{{"text": ""}}
	}
	send(calls, true)
}
