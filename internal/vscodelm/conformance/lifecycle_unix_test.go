//go:build unix

package conformance

import (
	"syscall"
	"testing"
	"time"
)

// Case 9: SIGTERM (how the extension's dispose() ends the backend) and SIGINT end parley
// promptly while stdin is still open, and its agents with it.
func TestSignalsStopParley(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			c := start(t)
			c.conversation(elizaTagged()).Turn(alike)
			c.conversation(fakeAgent("ok")).fakeTurn("hello")
			hanging := c.conversation(fakeAgent("ok")).Send(user("hang"))
			c.WaitParts(hanging, 1)
			c.Cmd.Process.Signal(sig)
			select {
			case <-c.Exited():
			case <-time.After(*hangGuard):
				t.Fatalf("parley vscodelm still runs %v after %v with stdin open", *hangGuard, sig)
			}
			if left := waitNoAgents(); len(left) > 0 {
				t.Errorf("agents outlive parley vscodelm: %v", left)
			}
			c.Fails(hanging, -32800)
		})
	}
}
