package main

// Black-box tests of parley's agent on a model with a small context window: the real
// binary over ACP, a scripted model server that reports a 4,096-token window, counts
// every prompt as a server does and records what it would have cut.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

const smallWindow = 4096

// The model's side of the long sessions, scripted by what each request says.
var (
	readRequest  = regexp.MustCompile(`Read (file\d+\.go)`)
	deployCode   = regexp.MustCompile(`ZEBRA-\d+`)
	summaryAsked = "You are compacting the conversation"
)

// smallModel answers like a model would: a read_file call for "Read fileNN.go", a
// sentence about the file once its content came back, the deployment code when asked
// (if the request still carries it), and summaries that keep the user's facts first.
func smallModel(rec *fakellm.Recorded) *fakellm.Reply {
	if len(rec.Messages) > 0 && strings.HasPrefix(rec.Messages[0].Content, summaryAsked) {
		return &fakellm.Reply{Content: []string{scriptedSummary(rec.LastUser())}}
	}
	last := rec.Messages[len(rec.Messages)-1]
	switch {
	case last.Role == "tool":
		first, _, _ := strings.Cut(strings.TrimSpace(last.Content), "\n")
		return &fakellm.Reply{Content: []string{"It starts with: " + first + " [TASK_COMPLETE]"}}
	case strings.HasPrefix(last.Content, "What is the deployment code"):
		for _, m := range rec.Messages {
			if code := deployCode.FindString(m.Content); code != "" {
				return &fakellm.Reply{Content: []string{"The deployment code is " + code + "."}}
			}
		}
		return &fakellm.Reply{Content: []string{"I do not know it."}}
	default:
		if m := readRequest.FindStringSubmatch(last.Content); m != nil {
			args := fmt.Sprintf(`{"path":%q}`, m[1])
			return &fakellm.Reply{ToolCalls: []llm.ToolCall{{ID: "c", Name: "read_file", Arguments: []byte(args)}}}
		}
		return &fakellm.Reply{Content: []string{"Noted."}}
	}
}

// scriptedSummary is what the scripted model writes when asked to summarize: the facts
// the user stated (from the earlier summary, or said in this part), then the files read.
func scriptedSummary(request string) string {
	var facts, read []string
	for _, line := range strings.Split(request, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "Fact: "):
			facts = append(facts, line)
		case strings.HasPrefix(line, "User: Remember this: "):
			fact, _, _ := strings.Cut(strings.TrimPrefix(line, "User: Remember this: "), ".")
			facts = append(facts, "Fact: "+fact+".")
		}
		if m := readRequest.FindStringSubmatch(line); m != nil && !slices.Contains(read, m[1]) {
			read = append(read, m[1])
		}
	}
	if len(read) > 4 {
		read = read[len(read)-4:]
	}
	return strings.Join(facts, "\n") + "\nFiles read lately: " + strings.Join(read, ", ") + "."
}

// bigFiles writes n Go files of about 12 KB each (well over 3,000 tokens).
func bigFiles(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package files // file%02d.go\n", i)
		for line := range 200 {
			fmt.Fprintf(&b, "const value%02d_%03d = \"the quick brown fox %d jumps over the lazy dog\"\n", i, line, line*i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.go", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// longSession drives a session of turns prompts: a fact first, then a file read per
// turn, then the question about the fact. It returns the agent process and the session.
func longSession(t *testing.T, w workspaceFixture, fake *fakellm.Server, turns int, flags ...string) (*agentProcess, acp.SessionID, []turnRecord) {
	t.Helper()
	bigFiles(t, w.dir, 10)
	p := startAgent(t, w.dir, w.env, fake, flags...)
	id := p.newSession(t, w.dir)
	var record []turnRecord
	for i := range turns {
		text := fmt.Sprintf("Read file%02d.go and tell me how it starts.", i%10)
		switch {
		case i == 0:
			text = "Remember this: my name is Ada and the deployment code is ZEBRA-42. " + text
		case i == turns-1:
			text = "What is the deployment code I gave you at the start?"
		}
		before := len(fake.Requests())
		stop := p.prompt(t, id, text)
		record = append(record, turnRecord{prompt: text, stop: stop, requests: fake.Requests()[before:], updates: p.client.take()})
	}
	return p, id, record
}

// turnRecord is one turn as the client and the server saw it.
type turnRecord struct {
	prompt   string
	stop     acp.StopReason
	requests []*fakellm.Recorded
	updates  []acp.SessionUpdate
}

func chatRequests(reqs []*fakellm.Recorded) (chats, summaries []*fakellm.Recorded) {
	for _, r := range reqs {
		if !strings.Contains(r.Path, "chat") {
			continue
		}
		if strings.HasPrefix(r.Messages[0].Content, summaryAsked) {
			summaries = append(summaries, r)
		} else {
			chats = append(chats, r)
		}
	}
	return chats, summaries
}

func usageUpdates(updates []acp.SessionUpdate) []*acp.UsageUpdate {
	var out []*acp.UsageUpdate
	for _, u := range updates {
		if u.UsageUpdate != nil {
			out = append(out, u.UsageUpdate)
		}
	}
	return out
}

// checkWindow: every request fits the window with room for the reply, and Ollama was
// told the window.
func checkWindow(t *testing.T, turns []turnRecord, ollama bool) {
	t.Helper()
	for i, turn := range turns {
		for _, r := range turn.requests {
			if !strings.Contains(r.Path, "chat") {
				continue
			}
			if r.Truncated || r.PromptTokens > budget {
				t.Errorf("turn %d: a request of %d tokens (truncated %v) for a budget of %d", i, r.PromptTokens, r.Truncated, budget)
			}
			if ollama && (r.NumCtx != smallWindow || r.NumPredict < smallWindow-budget || r.PromptTokens+r.NumPredict > r.NumCtx) {
				t.Errorf("turn %d: num_ctx %d, num_predict %d for a prompt of %d", i, r.NumCtx, r.NumPredict, r.PromptTokens)
			}
		}
	}
}

// budget is what a prompt may take of the window: the agent keeps a quarter for the
// reply.
const budget = smallWindow * 3 / 4

func TestAgentFortyTurnsInAFourThousandTokenWindow(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"ollama", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			w := newWorkspace(t)
			fake := fakellm.New(t, fakellm.Reply{Answer: smallModel, Reuse: true})
			fake.SetModel("m", llm.ModelInfo{ContextLength: smallWindow, Tools: true})
			var flags []string
			if dialect == "openai" {
				flags = []string{"--model", "openai:m", "--base-url", fake.OpenAIURL()}
			}
			_, _, turns := longSession(t, w, fake, 40, flags...)
			checkWindow(t, turns, dialect == "ollama")

			compactions := 0
			for i, turn := range turns {
				if turn.stop != acp.StopReasonEndTurn {
					t.Errorf("turn %d ended %q", i, turn.stop)
				}
				_, summaries := chatRequests(turn.requests)
				compactions += len(summaries)
				for _, u := range turn.updates {
					if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status == acp.ToolCallStatusCompleted {
						for _, c := range u.ToolCallUpdate.Content {
							if c.Content == nil {
								continue
							}
							if text, _ := c.Content.Content.AsText(); strings.Contains(text, "Compacted the conversation") && len(summaries) == 0 {
								t.Errorf("turn %d: a compaction note without a summary request", i)
							}
						}
					}
				}
			}
			if compactions == 0 {
				t.Fatal("40 turns of large reads in 4,096 tokens and the conversation was never compacted")
			}
			largest := 0
			for _, turn := range turns {
				for _, r := range turn.requests {
					largest = max(largest, r.PromptTokens)
				}
			}
			t.Logf("%d summary requests; the largest prompt took %d of %d tokens", compactions, largest, smallWindow)

			// The fact from the first turn reached the last request through the summary.
			last := turns[len(turns)-1]
			chats, _ := chatRequests(last.requests)
			final := chats[len(chats)-1]
			carrier := ""
			for _, m := range final.Messages {
				if strings.Contains(m.Content, "ZEBRA-42") {
					carrier = m.Content
				}
			}
			if !strings.Contains(carrier, "Summary of the earlier conversation") {
				t.Errorf("the last request carries the fact in %q, not in a summary", carrier)
			}
			if final.Contains("Remember this: my name is Ada") {
				t.Error("the first prompt was never compacted away")
			}
			if got := replyText(last.updates); !strings.Contains(got, "ZEBRA-42") {
				t.Errorf("the last reply %q", got)
			}

			// usage_update says what the next request carries: within a turn, the last
			// update before the final request; at its end, the next turn's first
			// request without the new prompt.
			for i, turn := range turns {
				chats, _ := chatRequests(turn.requests)
				ups := usageUpdates(turn.updates)
				if len(ups) < len(chats) {
					t.Fatalf("turn %d: %d usage updates for %d requests", i, len(ups), len(chats))
				}
				for _, u := range ups {
					if u.Size != smallWindow {
						t.Errorf("turn %d: usage size %d", i, u.Size)
					}
				}
				if len(chats) == 2 {
					near(t, fmt.Sprintf("turn %d, before its second request", i), ups[len(ups)-2].Used, chats[1].PromptTokens)
				}
				// (Unless the next prompt itself made the conversation compact.)
				if next, nextSummaries := chatRequests(turnsAfter(turns, i)); len(next) > 0 && len(nextSummaries) == 0 {
					prompt := fakellm.PromptTokens([]llm.Message{{Role: "user", Content: turns[i+1].prompt}}, nil) - fakellm.PromptTokens(nil, nil)
					near(t, fmt.Sprintf("turn %d, at its end", i), ups[len(ups)-1].Used, next[0].PromptTokens-prompt)
				}
			}
		})
	}
}

func turnsAfter(turns []turnRecord, i int) []*fakellm.Recorded {
	if i+1 >= len(turns) {
		return nil
	}
	return turns[i+1].requests
}

// near fails unless the agent's figure is within a tenth of the server's.
func near(t *testing.T, what string, used uint64, server int) {
	t.Helper()
	if d := float64(used) - float64(server); d > 0.1*float64(server) || d < -0.1*float64(server) {
		t.Errorf("%s: usage_update says %d, the server counted %d", what, used, server)
	}
}

func TestAgentHundredTurnsNeverOverflow(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fake := fakellm.New(t, fakellm.Reply{Answer: smallModel, Reuse: true})
	fake.SetModel("m", llm.ModelInfo{ContextLength: smallWindow, Tools: true})
	_, _, turns := longSession(t, w, fake, 100)
	checkWindow(t, turns, true)
	for i, turn := range turns {
		if turn.stop != acp.StopReasonEndTurn {
			t.Errorf("turn %d ended %q", i, turn.stop)
		}
	}
	if got := replyText(turns[len(turns)-1].updates); !strings.Contains(got, "ZEBRA-42") {
		t.Errorf("after 100 turns the last reply is %q", got)
	}
}
