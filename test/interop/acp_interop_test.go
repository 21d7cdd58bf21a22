package interop

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/testbin"
)

// TestSDKClientDrivesParleyACP drives `parley acp --agent eliza` with the SDK's client,
// as any third-party ACP client would: initialize must tell what Eliza takes (no image),
// and a client that did not ask for parley's _parley/* notifications must get none
// across a turn that writes a file, while one that asked gets them.
func TestSDKClientDrivesParleyACP(t *testing.T) {
	requirePeers(t)
	t.Parallel()
	for _, asked := range []bool{false, true} {
		name := "plain client"
		var flags []string
		if asked {
			name, flags = "client that asked", []string{"--parley"}
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cwd := tempDir(t)
			env := testbin.HomeEnv(tempDir(t))
			agent := parleyBinary(t) + " acp --agent eliza --cwd " + cwd
			s := runClientIn(t, cwd, env, agent, append(flags, "--prompt", "write file notes.txt with hello", "--prompt", "I am worried about my tests")...)
			// A client that speaks parley's extensions may choose each session's agent:
			// it is told what every agent takes (each session's own comes with it).
			p := s.AgentCapabilities.PromptCapabilities
			if want := !asked; p["image"] || p["audio"] || p["embeddedContext"] != want {
				t.Errorf("promptCapabilities %v: want embeddedContext %v, no image, no audio", p, want)
			}
			if b, err := os.ReadFile(filepath.Join(cwd, "notes.txt")); err != nil || string(b) != "hello\n" {
				t.Fatalf("notes.txt: %q, %v: the turn did not write it", b, err)
			}
			var parleys []string
			for _, m := range s.Notifications {
				if strings.HasPrefix(m, "_parley/") {
					parleys = append(parleys, m)
				}
			}
			switch {
			case !asked && len(parleys) > 0:
				t.Errorf("a client that did not ask was sent %q", parleys)
			case asked && (!slices.Contains(parleys, "_parley/changes") || !slices.Contains(parleys, "_parley/queue")):
				t.Errorf("a client that asked was sent %q; want _parley/changes and _parley/queue", parleys)
			}
		})
	}
}
