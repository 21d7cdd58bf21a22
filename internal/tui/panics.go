package tui

import (
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"runtime/debug"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// Panic is a panic the terminal UI caught: in its loop (Update, View, Init, what the
// program runs there) or in one of its commands. Run returns it once the terminal is
// restored (the alternate screen left, the cursor shown, the terminal's modes put back),
// so that its caller can close the conversations, keep the stack and say where.
type Panic struct {
	Where string // "Update", "View", "Init", "a command" or "the screen's loop"
	Value any
	Stack []byte // the panicking goroutine's
}

func (p *Panic) Error() string {
	return fmt.Sprintf("the terminal UI panicked in %s: %v", p.Where, p.Value)
}

// Why parley catches the panics itself rather than letting bubbletea do it (its
// WithoutCatchPanics is set): bubbletea prints the value and the stack on stderr, mixed
// with what the terminal shows, and keeps neither for the caller. Here:
//
//   - the loop runs on Run's goroutine: Update, View and Init recover where they are
//     (guarded) and the program quits in order; what else runs there (tea.ExecProcess's
//     callbacks, bubbletea itself) is caught by a deferred recover around Program.Run,
//     and Program.ReleaseTerminal then runs bubbletea's own restore, which the unwinding
//     skipped;
//   - a command runs on a goroutine of bubbletea's, and the commands of a tea.Batch or a
//     tea.Sequence on more of them: every command the model returns is wrapped, and so
//     are those of the batches and sequences it returns (wrapMsg), so that a panic comes
//     back as a panicMsg, which quits the program in order.
//
// What neither can catch is a panic on a goroutine that is not the UI's: bubbletea's
// renderer (the screen's cells are written on a ticker of its own), the conversation
// core. Those end the process as Go does.
type guard struct {
	mu    sync.Mutex
	first *Panic
}

// catch records a panic (the first one: what follows is usually its consequence).
func (g *guard) catch(where string, r any) *Panic {
	p := &Panic{Where: where, Value: r, Stack: debug.Stack()}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.first == nil {
		g.first = p
	}
	return g.first
}

func (g *guard) caught() *Panic {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.first
}

// run runs the program, catching a panic of its loop.
func (g *guard) run(p *tea.Program) (err error) {
	defer func() {
		if r := recover(); r != nil {
			g.catch("the screen's loop", r)
			// bubbletea's restore, which the unwinding skipped: the read of the input ended
			// and waited for (Kill would close it beside the read), the renderer's modes
			// reset, the terminal's state put back.
			p.ReleaseTerminal()
		}
	}()
	_, err = p.Run()
	return err
}

// panicMsg tells the loop that a command panicked.
type panicMsg struct{ p *Panic }

// wrap makes cmd report a panic as a panicMsg, and wraps the commands its message carries.
func (g *guard) wrap(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = panicMsg{g.catch("a command", r)}
			}
		}()
		return g.wrapMsg(cmd())
	}
}

// cmdType is tea.Cmd, for the commands of a tea.Sequence, whose message type bubbletea
// does not export (a []tea.Cmd).
var cmdType = reflect.TypeFor[tea.Cmd]()

// wrapMsg wraps the commands of a batch or a sequence, which bubbletea runs on
// goroutines of its own.
func (g *guard) wrapMsg(msg tea.Msg) tea.Msg {
	if batch, ok := msg.(tea.BatchMsg); ok {
		out := make(tea.BatchMsg, len(batch))
		for i, c := range batch {
			out[i] = g.wrap(c)
		}
		return out
	}
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c, _ := v.Index(i).Interface().(tea.Cmd)
			out.Index(i).Set(reflect.ValueOf(g.wrap(c)))
		}
		return out.Interface()
	}
	return msg
}

// guarded is the screen with its panics caught: Update's, View's and Init's here, on the
// loop's goroutine, so that the loop goes on and quits in order (bubbletea's restore then
// runs as on /quit; guard.run's is the last resort); the commands' through wrap. Once a panic
// is caught the model is no longer called: its state may be half changed, so the screen
// stays as it was last drawn until the program has quit.
type guarded struct {
	inner tea.Model
	g     *guard
	prog  *tea.Program
	trap  testTrap
	last  tea.View
	dead  bool
}

func (w *guarded) Init() (cmd tea.Cmd) {
	defer w.recover("Init", &cmd)
	return w.g.wrap(w.inner.Init())
}

func (w *guarded) Update(msg tea.Msg) (self tea.Model, cmd tea.Cmd) {
	self = w // what a panic returns too
	if w.dead {
		return w, nil
	}
	if _, ok := msg.(panicMsg); ok {
		w.dead = true
		return w, tea.Quit
	}
	defer w.recover("Update", &cmd)
	if cmd, ok := w.trap.update(msg); ok {
		return w, w.g.wrap(cmd)
	}
	w.inner, cmd = w.inner.Update(msg)
	return w, w.g.wrap(cmd)
}

// recover, deferred, catches a panic of the model's Init or Update and quits.
func (w *guarded) recover(where string, cmd *tea.Cmd) {
	if r := recover(); r != nil {
		w.g.catch(where, r)
		w.dead = true
		*cmd = tea.Quit
	}
}

func (w *guarded) View() (v tea.View) {
	if w.dead {
		return w.last
	}
	defer func() {
		if r := recover(); r != nil {
			w.g.catch("View", r)
			w.dead, v = true, w.last
			if w.prog != nil {
				go w.prog.Quit() // View returns no command; Quit waits for the loop, which is here
			}
		}
	}()
	w.trap.view()
	w.last = w.inner.View()
	return w.last
}

// EnvTestPanic names the test hook that makes the terminal UI panic, for the tests of how
// parley recovers (a black-box test has no other honest way to make the real binary
// panic): with PARLEY_TEST_PANIC set to update, view, command, batch, sequence or exec,
// the F12 key makes Update panic, the next View panic, Update return a command (alone,
// in a tea.Batch, in a tea.Sequence) that panics, or a tea.ExecProcess (of `true`) whose
// callback, which bubbletea runs in its loop, panics. It is undocumented for users and
// does nothing else.
const EnvTestPanic = "PARLEY_TEST_PANIC"

// testTrap is the hook EnvTestPanic sets ("" when unset).
type testTrap struct {
	where   string
	viewing bool // the next View panics
}

func newTestTrap() testTrap { return testTrap{where: os.Getenv(EnvTestPanic)} }

func (t *testTrap) value() string {
	return EnvTestPanic + "=" + t.where + ": the panic parley was asked for, to test how it recovers"
}

// update springs the trap on F12: it panics, or returns the command that will.
func (t *testTrap) update(msg tea.Msg) (tea.Cmd, bool) {
	key, ok := msg.(tea.KeyPressMsg)
	if t.where == "" || !ok || key.Code != tea.KeyF12 {
		return nil, false
	}
	boom := func() tea.Msg { panic(t.value()) }
	nothing := func() tea.Msg { return nil }
	switch t.where {
	case "update":
		panic(t.value())
	case "view":
		t.viewing = true
		return nil, true
	case "command":
		return boom, true
	case "batch":
		return tea.Batch(nothing, boom), true
	case "sequence":
		return tea.Sequence(nothing, boom), true
	case "exec":
		return tea.ExecProcess(exec.Command("true"), func(error) tea.Msg { panic(t.value()) }), true
	}
	return nil, false
}

func (t *testTrap) view() {
	if t.viewing {
		panic(t.value())
	}
}
