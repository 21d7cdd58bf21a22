package conversation

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/workspace"
)

// Calls that race Close: the actor ends once it is closed and its helpers have reported,
// whatever is still in its inbox. A method that posted its message just behind the close
// must not wait for an answer that never comes.

// closeRacer is one method that waits for the actor; it reports how it ended (nil when
// it got an answer that says the conversation is over in its own way).
type closeRacer func(ctx context.Context, c *Conversation) error

var closeRacers = map[string]closeRacer{
	"Unqueue": func(ctx context.Context, c *Conversation) error {
		if c.Unqueue(1) {
			return errors.New("Unqueue took back a prompt from a closed conversation")
		}
		return nil
	},
	"AnswerElicitation": func(ctx context.Context, c *Conversation) error {
		return c.AnswerElicitation(1, ElicitationAnswer{Action: acp.ElicitationActionDecline})
	},
	"Session": func(ctx context.Context, c *Conversation) error {
		_, err := c.Session(ctx)
		return err
	},
	"Subscribe": func(ctx context.Context, c *Conversation) error {
		s := c.Subscribe()
		for range s.Ready() {
			for _, ev := range s.Take() {
				if closed, ok := ev.(Closed); ok {
					return closed.Err
				}
			}
		}
		return nil
	},
	"ListSessions": func(ctx context.Context, c *Conversation) error {
		_, err := c.ListSessions(ctx)
		return err
	},
	"NewSession": func(ctx context.Context, c *Conversation) error {
		_, err := c.NewSession(ctx)
		return err
	},
	"SignIn": func(ctx context.Context, c *Conversation) error {
		return c.SignIn("a-method", SignInOptions{})
	},
	"seenCall (a permission request's tool call)": func(ctx context.Context, c *Conversation) error {
		if tc := c.seenCall("call-1"); tc != nil {
			return errors.New("a closed conversation reported a tool call")
		}
		return nil
	},
	"ask (a permission question)": func(ctx context.Context, c *Conversation) error {
		a, err := c.ask(ctx, &permission.Question{Request: &acp.RequestPermissionRequest{}})
		if a != permission.Cancelled {
			return fmt.Errorf("a closed conversation answered a question: %v", a)
		}
		return err
	},
	"elicit (an elicitation)": func(ctx context.Context, c *Conversation) error {
		resp, err := c.elicit(ctx, &Elicitation{Mode: acp.ElicitationModeForm})
		if err == nil && resp.Action != acp.ElicitationActionCancel {
			return errors.New("a closed conversation answered an elicitation " + string(resp.Action))
		}
		return ErrClosed
	},
}

func unstartedConversation(t testing.TB, dir string) *Conversation {
	t.Helper()
	roots, err := workspace.NewRoots(dir)
	if err != nil {
		t.Fatal(err)
	}
	return newConversation(Options{
		Agent: NewAgent(AgentOptions{Name: "test"}), Roots: roots, Interactive: true, Elicit: true,
		Policy: &permission.Policy{},
	})
}

// TestCallsBehindCloseEnd makes the interleaving that hung: the method's message is in
// the inbox right behind the close, so the actor ends without handling it. Every method
// must come back (a hang is synctest's deadlock) and say the conversation ended.
func TestCallsBehindCloseEnd(t *testing.T) {
	for name, call := range closeRacers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				c := unstartedConversation(t, dir)
				c.inbox <- closeMsg{}
				returned := make(chan error, 1)
				go func() { returned <- call(context.Background(), c) }()
				synctest.Wait() // the call has posted, and waits
				if n := len(c.inbox); n != 2 {
					t.Fatalf("%d messages in the inbox, want the close and the call's", n)
				}
				go c.run()
				err := <-returned
				if len(c.inbox) != 1 {
					t.Fatalf("the actor handled the call's message: the interleaving was not the one wanted")
				}
				if err != nil && !errors.Is(err, ErrClosed) {
					t.Errorf("%s returned %v, want ErrClosed", name, err)
				}
			})
		})
	}
}

// TestCallsRacingCloseEnd races each method against Close as it happens, many times.
func TestCallsRacingCloseEnd(t *testing.T) {
	for name, call := range closeRacers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for range 200 {
				c := unstartedConversation(t, dir)
				go c.run()
				returned := make(chan error, 1)
				go func() { returned <- call(t.Context(), c) }()
				c.Close()
				<-returned // an answer from before the close is as good as ErrClosed; a hang is not

			}
		})
	}
}

// TestOnlyRoundTripWaitsForTheActor keeps the class closed: a method that waits on a
// reply channel itself, rather than through roundTrip, would hang again when it races
// Close. The receives allowed are those on ctx, on the conversation's end, and the
// Agent's own start.
func TestOnlyRoundTripWaitsForTheActor(t *testing.T) {
	allowed := map[string]bool{
		"roundTrip": true, // the one place
		"running":   true, // Agent: the start under way (with ctx)
		"exited":    true, // the process's end
		"Close":     true, // Conversation.Close waits for the end; Agent.Close for a start
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || allowed[fn.Name.Name] || isKeeper(fn) {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				u, ok := n.(*ast.UnaryExpr)
				if !ok || u.Op != token.ARROW {
					return true
				}
				if call, ok := u.X.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Done" {
						return true // ctx.Done()
					}
				}
				if sel, ok := u.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "done" {
					return true // the conversation's end
				}
				t.Errorf("%s: %s waits on a channel itself; wait for the actor with roundTrip", fset.Position(u.Pos()), fn.Name.Name)
				return true
			})
		}
	}
}

// isKeeper reports whether fn is a method of the Keeper, which is a view of the
// conversation (a subscriber with its own goroutine), not a caller of the actor: it waits
// on its subscription and on its own goroutine.
func isKeeper(fn *ast.FuncDecl) bool {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "Keeper"
}
