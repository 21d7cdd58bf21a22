package main

// Black-box tests of how parley's agent ends a turn the server cut short or withheld,
// of images, and of compaction asked for and kept across a restart.

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

func TestRunParleyAgentReplyCutAtTheLengthLimit(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"ollama", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			fake := fakellm.New(t, fakellm.Reply{Content: []string{"Here is the plan: first we"}, FinishReason: "length",
				ToolCalls: []llm.ToolCall{tool("write_file", `{"path":"half.txt","content":"cut"}`)}})
			fake.SetModel("m", fakellm.DefaultModel)
			base := fake.URL()
			if dialect == "openai" {
				base = fake.OpenAIURL()
			}
			w := newWorkspace(t)
			r := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", agentCommand(t, dialect+":m", base)+" --yolo", "plan it")
			if r.code != 4 {
				t.Fatalf("exit %d, want 4 (max_tokens)\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, "first we") || !strings.Contains(r.stdout, "cut off") || !strings.Contains(r.stdout, "did not run") {
				t.Errorf("stdout %q", r.stdout)
			}
			if fileExists(w.dir + "/half.txt") {
				t.Error("a tool call from a cut reply ran")
			}
		})
	}
}

func TestRunParleyAgentFilteredReplyIsARefusal(t *testing.T) {
	t.Parallel()
	fake := fakellm.New(t,
		fakellm.Reply{FinishReason: "content_filter", Refusal: "This request violates the usage policy."},
		fakellm.Reply{Content: []string{"Hello."}},
	)
	fake.SetModel("m", fakellm.DefaultModel)
	w := newWorkspace(t)
	r := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", agentCommand(t, "openai:m", fake.OpenAIURL()), "something forbidden")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (refusal)\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "violates the usage policy") || !strings.Contains(r.stdout, "withheld") {
		t.Errorf("stdout %q: what the server said is not shown", r.stdout)
	}
}

// A refused turn leaves the conversation: the next prompt does not carry it.
func TestAgentRefusedTurnIsNotCarried(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fake := fakellm.New(t,
		fakellm.Reply{FinishReason: "content_filter"},
		fakellm.Reply{Content: []string{"Hello."}},
	)
	fake.SetModel("m", fakellm.DefaultModel)
	p := startAgent(t, w.dir, w.env, fake, "--model", "openai:m", "--base-url", fake.OpenAIURL())
	id := p.newSession(t, w.dir)
	if stop := p.prompt(t, id, "something forbidden"); stop != acp.StopReasonRefusal {
		t.Fatalf("stop %q", stop)
	}
	if got := replyText(p.client.take()); !strings.Contains(got, "gave no reason") {
		t.Errorf("reply %q", got)
	}
	p.prompt(t, id, "hello")
	reqs := fake.Requests()
	if last := reqs[len(reqs)-1]; last.Contains("forbidden") {
		t.Errorf("the refused prompt was carried into the next request: %+v", last.Messages)
	}
}

func TestAgentImagesReachAModelThatSees(t *testing.T) {
	t.Parallel()
	const png = "iVBORw0KGgoAAAANSUhEUg=="
	for _, dialect := range []string{"ollama", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			w := newWorkspace(t)
			fake := fakellm.New(t, fakellm.Reply{Content: []string{"A red square."}})
			fake.SetModel("m", llm.ModelInfo{ContextLength: 8192, Tools: true, Vision: true})
			flags := []string{}
			if dialect == "openai" {
				flags = []string{"--model", "openai:m", "--base-url", fake.OpenAIURL()}
			}
			p, caps := startAgentCaps(t, w, fake, flags...)
			if !caps.PromptCapabilities.Image {
				t.Error("promptCapabilities.image is false for a model that sees")
			}
			id := p.newSession(t, w.dir)
			stop := p.promptBlocks(t, id, acp.TextBlock("what is this?"), acp.ImageBlock(png, "image/png"))
			if stop != acp.StopReasonEndTurn {
				t.Fatalf("stop %q", stop)
			}
			reqs := fake.Requests()
			user := reqs[len(reqs)-1].Messages[1]
			if user.Content != "what is this?" || len(user.Images) != 1 || user.Images[0].Data != png {
				t.Errorf("the model got %+v", user)
			}
		})
	}
}

func TestAgentImagesToAModelThatCannotSeeAreRefused(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fake := fakellm.New(t, fakellm.Reply{Content: []string{"never"}})
	fake.SetModel("m", llm.ModelInfo{ContextLength: 8192, Tools: true})
	p, caps := startAgentCaps(t, w, fake)
	if caps.PromptCapabilities.Image {
		t.Error("promptCapabilities.image is true for a model without vision")
	}
	id := p.newSession(t, w.dir)
	if stop := p.promptBlocks(t, id, acp.TextBlock("what is this?"), acp.ImageBlock("AAAA", "image/png")); stop != acp.StopReasonRefusal {
		t.Fatalf("stop %q, want refusal", stop)
	}
	if got := replyText(p.client.take()); !strings.Contains(got, "does not take images") {
		t.Errorf("reply %q", got)
	}
	for _, r := range fake.Requests() {
		if strings.Contains(r.Path, "chat") {
			t.Errorf("the model was sent %+v", r.Messages)
		}
	}
}

func TestAgentCompactOnRequestAndAfterARestart(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fake := fakellm.New(t, fakellm.Reply{Answer: smallModel, Reuse: true})
	fake.SetModel("m", llm.ModelInfo{ContextLength: smallWindow, Tools: true})
	bigFiles(t, w.dir, 1)
	first := startAgent(t, w.dir, w.env, fake)
	id := first.newSession(t, w.dir)
	first.prompt(t, id, "Remember this: the deployment code is ZEBRA-42. Read file00.go and tell me how it starts.")
	first.client.take()
	if stop := first.prompt(t, id, "/compact"); stop != acp.StopReasonEndTurn {
		t.Fatalf("/compact ended %q", stop)
	}
	updates := first.client.take()
	noted := false
	for _, u := range updates {
		if u.ToolCall != nil && u.ToolCall.Title == "Compact the conversation" {
			noted = true
		}
	}
	_, summaries := chatRequests(fake.Requests())
	if !noted || len(summaries) != 1 {
		t.Fatalf("/compact: noted %v, %d summary requests; reply %q", noted, len(summaries), replyText(updates))
	}
	first.stop()

	second := startAgent(t, w.dir, w.env, fake)
	if _, err := second.conn.LoadSession(t.Context(), &acp.LoadSessionRequest{SessionID: id, Cwd: w.dir, MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	second.prompt(t, id, "What is the deployment code I gave you at the start?")
	chats, _ := chatRequests(fake.Requests())
	last := chats[len(chats)-1]
	if last.Contains("const value00_000") || last.Contains("Remember this: the deployment code") {
		t.Errorf("after a restart the model was sent the conversation from before /compact: %+v", last.Messages)
	}
	if !last.Contains("Summary of the earlier conversation") || !last.Contains("ZEBRA-42") {
		t.Errorf("after a restart the summary is gone: %+v", last.Messages)
	}
	if got := replyText(second.client.take()); !strings.Contains(got, "ZEBRA-42") {
		t.Errorf("reply %q", got)
	}
}

// An OpenAI-compatible server that does not say how large its window is, until it
// refuses a prompt as too long: the agent learns the window from the refusal, compacts
// to it and the turn goes on.
func TestAgentLearnsTheWindowFromARefusal(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fake := fakellm.New(t, fakellm.Reply{Answer: smallModel, Reuse: true})
	fake.SetModel("m", llm.ModelInfo{ContextLength: smallWindow, Tools: true})
	fake.HideWindow("m")
	bigFiles(t, w.dir, 10)
	p := startAgent(t, w.dir, w.env, fake, "--model", "openai:m", "--base-url", fake.OpenAIURL())
	id := p.newSession(t, w.dir)
	for i := range 6 {
		if stop := p.prompt(t, id, "Read file0"+string(rune('0'+i))+".go and tell me how it starts."); stop != acp.StopReasonEndTurn {
			t.Fatalf("turn %d ended %q", i, stop)
		}
	}
	refused, after := 0, 0
	for _, r := range fake.Requests() {
		if !strings.Contains(r.Path, "chat") {
			continue
		}
		if r.PromptTokens > smallWindow {
			refused++
		} else if refused > 0 {
			after++
		}
	}
	if refused != 1 || after == 0 {
		t.Errorf("%d prompts over the server's window, %d after", refused, after)
	}
}

// startAgentCaps is startAgent, and what the agent says it can do (asked again).
func startAgentCaps(t *testing.T, w workspaceFixture, fake *fakellm.Server, flags ...string) (*agentProcess, acp.AgentCapabilities) {
	t.Helper()
	p := startAgent(t, w.dir, w.env, fake, flags...)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	resp, err := p.conn.Initialize(ctx, &acp.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return p, resp.AgentCapabilities
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (p *agentProcess) promptBlocks(t *testing.T, id acp.SessionID, blocks ...acp.ContentBlock) acp.StopReason {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	resp, err := p.conn.Prompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: blocks})
	if err != nil {
		t.Fatal(err)
	}
	return resp.StopReason
}
