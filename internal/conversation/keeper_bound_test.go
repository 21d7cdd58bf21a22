package conversation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/toolstate"
)

// A flood of text and tool calls does not grow a kept turn past its bounds.
func TestKeptTurnIsBounded(t *testing.T) {
	kt := &keptTurn{byID: map[acp.ToolCallID]int{}}
	chunk := strings.Repeat("x", 1000)
	for range 1000 { // about 1 MB
		kt.apply(toolstate.Event{Kind: toolstate.TextDelta, Text: chunk})
	}
	for i := range 2 * maxKeptTools {
		kt.apply(toolstate.Event{Kind: toolstate.ToolStarted, Tool: &toolstate.ToolCall{ID: acp.ToolCallID(fmt.Sprint(i)), Title: "t"}})
	}
	if n := kt.reply.Len(); n > maxKeptReply+len(cutNote) || !strings.HasSuffix(kt.reply.String(), cutNote) {
		t.Errorf("kept reply: %d bytes (bound %d), ends %q", n, maxKeptReply, kt.reply.String()[n-40:])
	}
	if len(kt.tools) != maxKeptTools {
		t.Errorf("kept %d tool calls, want the bound %d", len(kt.tools), maxKeptTools)
	}
}
