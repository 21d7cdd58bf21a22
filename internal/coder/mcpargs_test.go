package coder

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// TestMCPCallWithArgumentsThatAreNotAnObject: arguments an MCP tool cannot take are the
// model's mistake, told to it; the tool is not called with nothing instead.
func TestMCPCallWithArgumentsThatAreNotAnObject(t *testing.T) {
	var calls atomic.Int32
	server := mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "count", Description: "count"}, func(ctx context.Context, _ *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "counted"}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(srv.Close)
	h := startWith(t, "ollama", fakellm.DefaultModel, []acp.MCPServer{acp.HTTPMCPServer("c", srv.URL, nil)}, Options{},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c__count", `["not","an","object"]`)}},
		fakellm.Reply{Content: []string{"Done."}},
	)
	if stop := h.prompt(t.Context(), "count"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q", stop)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the tool was called %d times with arguments it cannot take", n)
	}
	reqs := h.fake.Requests()
	last := reqs[len(reqs)-1]
	if msg := last.Messages[len(last.Messages)-1]; !strings.Contains(msg.Content, "arguments") {
		t.Errorf("the model was told %q", msg.Content)
	}
}
