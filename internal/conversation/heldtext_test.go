package conversation

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parley-acp/parley/internal/mailbox"
)

// turnTexts takes what the view has and returns the text of each TurnUpdate in it.
func turnTexts(s *Subscription) []string {
	var texts []string
	for _, ev := range s.Take() {
		if u, ok := ev.(TurnUpdate); ok {
			texts = append(texts, u.Update.Text)
		}
	}
	return texts
}

// holdMsg keeps the actor busy until released.
type holdMsg struct{ release <-chan struct{} }

func (m holdMsg) handle(*Conversation) { <-m.release }

// waitingTogether puts updates in the actor's inbox at once, as a dispatcher faster than
// the actor leaves them: the actor is held busy while they are posted.
func waitingTogether(c *Conversation, texts ...string) {
	release := make(chan struct{})
	c.post(holdMsg{release})
	for _, text := range texts {
		c.postUpdate(context.Background(), chunkOf("s", text))
	}
	close(release)
}

// TestHeldTextOfAFloodGoesOutWithinMaxHeldFor: deltas the actor found waiting together (a
// flood) are joined into one event, held for more until the first is maxHeldFor old, and
// then sent though nothing else comes; a turn's first text and a few deltas go out at
// once.
func TestHeldTextOfAFloodGoesOutWithinMaxHeldFor(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		c := unstartedConversation(t, dir)
		c.st.session.ID, c.st.lastTurn = "s", 1                               // a turn runs
		sub := &Subscription{c: c, box: mailbox.New[Event](), kind: modelSub} // as subscribe adds it
		c.st.subs = append(c.st.subs, sub)
		go c.run()
		defer c.Close()
		waitingTogether(c, "the ", "first ")
		synctest.Wait()
		if got := turnTexts(sub); len(got) != 1 || got[0] != "the first " {
			t.Fatalf("the turn's first text: the view has %q, want it at once, joined: %q", got, "the first ")
		}
		waitingTogether(c, "a ", "few ", "chunks ")
		synctest.Wait()
		if got := turnTexts(sub); len(got) != 1 || got[0] != "a few chunks " {
			t.Fatalf("a few chunks together: the view has %q, want them at once, joined: %q", got, "a few chunks ")
		}
		var flood []string
		for i := range floodDeltas {
			flood = append(flood, fmt.Sprintf("%d ", i))
		}
		waitingTogether(c, flood...)
		synctest.Wait()
		if got := turnTexts(sub); len(got) != 0 {
			t.Fatalf("the flood's text went out at once, as %q; want it held for more", got)
		}
		time.Sleep(maxHeldFor)
		synctest.Wait()
		if got := turnTexts(sub); len(got) != 1 || got[0] != strings.Join(flood, "") {
			t.Fatalf("after maxHeldFor the view has %q, want one event with %q", got, strings.Join(flood, ""))
		}
		c.postUpdate(context.Background(), chunkOf("s", "alone"))
		synctest.Wait()
		if got := turnTexts(sub); len(got) != 1 || got[0] != "alone" {
			t.Fatalf("a lone delta: the view has %q at once, want %q", got, "alone")
		}
	})
}
