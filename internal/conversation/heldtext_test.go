package conversation

import (
	"context"
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

// TestHeldTextOfAFloodGoesOutWithinMaxHeldFor: deltas the actor found waiting together (a
// flood) are joined into one event, held for more until the first is maxHeldFor old, and
// then sent though nothing else comes; a lone delta goes out at once.
func TestHeldTextOfAFloodGoesOutWithinMaxHeldFor(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		c := unstartedConversation(t, dir)
		c.st.session.ID = "s"
		sub := &Subscription{c: c, box: mailbox.New[Event](), kind: modelSub} // as subscribe adds it
		c.st.subs = append(c.st.subs, sub)
		ctx := context.Background()
		for _, w := range []string{"a ", "b ", "c "} { // waiting together, before the actor runs
			c.postUpdate(ctx, chunkOf("s", w))
		}
		go c.run()
		defer c.Close()
		synctest.Wait()
		if got := turnTexts(sub); len(got) != 0 {
			t.Fatalf("the flood's text went out at once, as %q; want it held for more", got)
		}
		time.Sleep(maxHeldFor)
		synctest.Wait()
		if got := turnTexts(sub); len(got) != 1 || got[0] != "a b c " {
			t.Fatalf("after maxHeldFor the view has %q, want one event with %q", got, "a b c ")
		}
		c.postUpdate(ctx, chunkOf("s", "alone"))
		synctest.Wait()
		if got := turnTexts(sub); len(got) != 1 || got[0] != "alone" {
			t.Fatalf("a lone delta: the view has %q at once, want %q", got, "alone")
		}
	})
}
