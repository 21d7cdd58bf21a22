package tui

import (
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// runCmd runs a command as bubbletea would: its message, and the commands of the batches
// and sequences it carries, each on its own.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, runCmd(c)...)
		}
		return out
	}
	if cmds, ok := sequenceCmds(msg); ok {
		var out []tea.Msg
		for _, c := range cmds {
			out = append(out, runCmd(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// sequenceCmds reads the commands of tea.Sequence's message, whose type is unexported.
func sequenceCmds(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem() != cmdType {
		return nil, false
	}
	cmds := make([]tea.Cmd, v.Len())
	for i := range cmds {
		cmds[i], _ = v.Index(i).Interface().(tea.Cmd)
	}
	return cmds, true
}

func TestGuardCatchesThePanicsOfCommands(t *testing.T) {
	boom := func() tea.Msg { panic("boom") }
	fine := func() tea.Msg { return "fine" }
	for name, cmd := range map[string]tea.Cmd{
		"alone":              boom,
		"in a batch":         tea.Batch(fine, boom),
		"in a sequence":      tea.Sequence(fine, boom),
		"a batch in a batch": tea.Batch(fine, tea.Batch(fine, boom)),
		"a batch in a sequence": tea.Sequence(fine, func() tea.Msg {
			return tea.Batch(fine, boom)()
		}),
	} {
		g := &guard{}
		msgs := runCmd(g.wrap(cmd))
		var caught *Panic
		for _, m := range msgs {
			if p, ok := m.(panicMsg); ok {
				caught = p.p
			}
		}
		if caught == nil || caught.Value != "boom" || caught.Where != "a command" || !strings.Contains(string(caught.Stack), "panics_test.go") {
			t.Errorf("%s: %v, caught %+v", name, msgs, caught)
		}
		if g.caught() != caught {
			t.Errorf("%s: the guard did not keep the panic", name)
		}
	}
}

// panicky is a model whose Update or View panics on demand.
type panicky struct{ update, view bool }

func (p *panicky) Init() tea.Cmd { return nil }
func (p *panicky) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if p.update {
		panic("in update")
	}
	return p, nil
}
func (p *panicky) View() tea.View {
	if p.view {
		panic("in view")
	}
	return tea.NewView("drawn")
}

func TestGuardedStopsTheModelAfterAPanic(t *testing.T) {
	inner := &panicky{}
	w := &guarded{inner: inner, g: &guard{}}
	if v := w.View(); v.Content != "drawn" {
		t.Fatalf("view: %q", v.Content)
	}
	inner.update = true
	self, cmd := w.Update(keyPress('a'))
	if self != w || cmd == nil {
		t.Fatalf("a panic in Update returns %v, %v", self, cmd)
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("a panic in Update does not quit")
	}
	if p := w.g.caught(); p == nil || p.Where != "Update" || p.Value != "in update" {
		t.Errorf("caught %+v", p)
	}
	inner.view = true // no longer called: the screen stays as last drawn
	if v := w.View(); v.Content != "drawn" {
		t.Errorf("the view after a panic: %q", v.Content)
	}
	if _, cmd := w.Update(keyPress('b')); cmd != nil {
		t.Error("the model is still updated after a panic")
	}
}

func TestGuardedCatchesAPanicInView(t *testing.T) {
	inner := &panicky{}
	w := &guarded{inner: inner, g: &guard{}}
	w.View()
	inner.view = true
	if v := w.View(); v.Content != "drawn" {
		t.Errorf("the view of a panic is not the last one drawn: %q", v.Content)
	}
	if p := w.g.caught(); p == nil || p.Where != "View" || p.Value != "in view" || !strings.Contains(string(p.Stack), "(*panicky).View") {
		t.Errorf("caught %+v", p)
	}
}
