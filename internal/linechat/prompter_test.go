package linechat

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/creack/pty"
)

// typedOn is a prompter reading a pseudo-terminal, and the terminal's other side, where
// the test types.
func typedOn(t *testing.T) (*Prompter, *os.File) {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, ptm) // the echo
	p := NewPrompter(tty)
	if p.term == nil {
		t.Fatal("a pseudo-terminal was not read as a terminal")
	}
	t.Cleanup(func() {
		p.Close()
		tty.Close()
		ptm.Close()
	})
	return p, ptm
}

func TestPrompterKeepsTypeAheadForPrompts(t *testing.T) {
	p, ptm := typedOn(t)
	ptm.Write([]byte("first\nsecond\n"))
	for _, want := range []string{"first", "second"} {
		if l, err := nextLine(t.Context(), p); err != nil || l.Text != want {
			t.Fatalf("next: %q, %v; want %q", l.Text, err, want)
		}
	}
}

// TestPrompterDiscardsTypeAhead: lines typed before the discard, whether the reader has
// already taken one of them from the terminal or not, never come out as fresh.
func TestPrompterDiscardsTypeAhead(t *testing.T) {
	for range 20 { // the reader is at a different point each time
		p, ptm := typedOn(t)
		ptm.Write([]byte("y\ny\nhalf a li"))
		mark, _ := p.DiscardTypeAhead()
		ptm.Write([]byte("ne\nn\n"))
		var fresh []string
		for len(fresh) < 2 {
			l, err := nextLine(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			if l.Epoch >= mark {
				fresh = append(fresh, l.Text)
			}
		}
		if fresh[0] != "ne" || fresh[1] != "n" {
			t.Fatalf("after the discard: %q, want the end of the half-typed line, then n", fresh)
		}
	}
}

func TestPrompterEndOfInput(t *testing.T) {
	p, ptm := typedOn(t)
	ptm.Write([]byte("last\n\x04"))
	if l, err := nextLine(t.Context(), p); err != nil || l.Text != "last" {
		t.Fatalf("next: %q, %v", l.Text, err)
	}
	if _, err := nextLine(t.Context(), p); !errors.Is(err, io.EOF) {
		t.Fatalf("after Ctrl-D: %v, want the end of the input", err)
	}
}

// nextLine waits for the prompter's next line.
func nextLine(ctx context.Context, p *Prompter) (InputLine, error) {
	select {
	case l := <-p.lines:
		return l, nil
	case <-p.eof:
		return InputLine{}, io.EOF
	case <-ctx.Done():
		return InputLine{}, ctx.Err()
	}
}
