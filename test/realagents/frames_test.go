//go:build linux

package realagents

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// frameSummary is validate.mjs's verdict on one run's frames.
type frameSummary struct {
	Path           string         `json:"path"`
	Error          string         `json:"error"`
	FramesIn       int            `json:"framesIn"`
	ViolationCount int            `json:"violationCount"`
	Methods        map[string]int `json:"methods"` // what parley sent, by method
	Legacy         map[string]int `json:"legacy"`  // requests removed from ACP that the agent offered
	Violations     []struct {
		Rule, Message, Frame string
	} `json:"violations"`
}

// requireValidFrames checks every frame parley sent in the run against the ACP schema
// (test/interop's validator) and returns what parley sent, by method.
func (sb *sandbox) requireValidFrames(t testing.TB) map[string]int {
	t.Helper()
	sdk := filepath.Join(repoDir(), "test", "interop", "node_modules", "@agentclientprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		t.Fatalf("the schema validator needs test/interop's packages (%v): run scripts/test-realagents", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node22(), filepath.Join(repoDir(), "test", "realagents", "validate.mjs"), sb.frames)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("validate.mjs: %v\n%s", err, stderr)
	}
	var sums []frameSummary
	if err := json.Unmarshal(out, &sums); err != nil || len(sums) != 1 {
		t.Fatalf("validate.mjs printed %s (%v)", out, err)
	}
	s := sums[0]
	if s.Error != "" {
		t.Fatalf("frames: %s", s.Error)
	}
	if s.FramesIn == 0 {
		t.Fatalf("the tee recorded no frame from parley in %s", sb.frames)
	}
	if len(s.Legacy) > 0 {
		t.Logf("parley sent legacy requests the agent offered (not in the v1 schema): %v", s.Legacy)
	}
	for _, v := range s.Violations {
		t.Errorf("parley sent a frame that breaks %s: %s\n\t%s", v.Rule, v.Message, v.Frame)
	}
	return s.Methods
}

// frame is one recorded frame, decoded.
type frame struct {
	Dir string
	T   float64
	Msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params map[string]any  `json:"params"`
		Result map[string]any  `json:"result"`
		Error  map[string]any  `json:"error"`
	}
}

// recordedFrames reads the run's frames.
func (sb *sandbox) recordedFrames(t testing.TB) []frame {
	t.Helper()
	f, err := os.Open(sb.frames)
	if err != nil {
		t.Fatalf("frames: %v", err)
	}
	defer f.Close()
	var out []frame
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec teeRecord
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		fr := frame{Dir: rec.Dir, T: rec.T}
		if json.Unmarshal([]byte(rec.Line), &fr.Msg) == nil {
			out = append(out, fr)
		}
	}
	return out
}

// updatesOfKind are the session/update notifications of kind from the agent.
func updatesOfKind(frames []frame, kind string) []map[string]any {
	var out []map[string]any
	for _, f := range frames {
		if f.Dir == "from-agent" && f.Msg.Method == "session/update" {
			if u, _ := f.Msg.Params["update"].(map[string]any); u["sessionUpdate"] == kind {
				out = append(out, u)
			}
		}
	}
	return out
}

// requestsFromAgent are the agent's requests of method.
func requestsFromAgent(frames []frame, method string) []frame {
	var out []frame
	for _, f := range frames {
		if f.Dir == "from-agent" && f.Msg.Method == method && len(f.Msg.ID) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// responseTo is the frame that answers the request with id, from the other side.
func responseTo(frames []frame, req frame) (frame, bool) {
	for _, f := range frames {
		if f.Dir != req.Dir && f.Msg.Method == "" && string(f.Msg.ID) == string(req.Msg.ID) {
			return f, true
		}
	}
	return frame{}, false
}

func (f frame) String() string {
	data, _ := json.Marshal(f.Msg)
	s := string(data)
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return f.Dir + " " + strings.TrimSpace(s)
}
