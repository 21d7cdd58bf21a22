package llm_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
)

// A server that sends reasoning_content, interleaves two calls' fragments and wants a key.
func TestOpenAIDeltasAndKey(t *testing.T) {
	const stream = `data: {"choices":[{"delta":{"reasoning_content":"hm"}}]}

data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"a","arguments":""}}]}}]}
data: {"choices":[{"delta":{"tool_calls":[{"index":1,"id":"y","function":{"name":"b","arguments":"{\"q\""}}]}}]}
data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"p\":\"é"}}]}}]}
data: {"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":":1}"}}]}}]}
data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}}]}
data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}
data: [DONE]
`
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		io.WriteString(w, stream)
	}))
	defer srv.Close()
	p, _, _ := llm.New("openai:m", srv.URL, "sekrit")
	got, err := collect(t, p, &llm.Request{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Chunk{Thinking: "hm", Done: true, ToolCalls: []llm.ToolCall{
		{ID: "x", Name: "a", Arguments: json.RawMessage(`{"p":"é"}`)},
		{ID: "y", Name: "b", Arguments: json.RawMessage(`{"q":1}`)},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if auth != "Bearer sekrit" {
		t.Errorf("Authorization = %q", auth)
	}
}

func TestOpenAITruncatedStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
	}))
	defer srv.Close()
	p, _, _ := llm.New("openai:m", srv.URL, "")
	if err := p.Chat(context.Background(), &llm.Request{Model: "m"}, func(llm.Chunk) error { return nil }); err == nil {
		t.Error("a stream cut before finish_reason was accepted")
	}
}
