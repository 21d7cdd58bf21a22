package tools

import (
	"context"
	"errors"
)

// Guard stands between the tools and the world: it is asked before a command runs and
// performs every file write, so that it can ask the user first (command safety,
// sensitive files) and keep what a write replaces (checkpoints). A nil Guard lets
// everything through.
type Guard interface {
	// Command is asked before a command runs; an error matching ErrRefused (a
	// *Refusal) means it must not, and says why.
	Command(ctx context.Context, c Command) error
	// Write makes change by calling write, after whatever must come first; it returns
	// write's error, or a *Refusal when the change must not be made.
	Write(ctx context.Context, change Change, write func(context.Context) error) error
}

// Command is a command about to run: a shell line (run_terminal_command) or an
// argument vector run without a shell (get_diagnostics).
type Command struct {
	Line string   // "" when Argv is set
	Argv []string // nil when Line is set
	Dir  string   // absolute, confined
}

// Change is a file write about to happen.
type Change struct {
	Path string  // absolute, confined
	Old  *string // the content it replaces; nil for a new file
	New  string
}

// ErrRefused matches every *Refusal.
var ErrRefused = errors.New("refused")

// Refusal is a Guard's "no". Message is for the model: why, and what to do instead.
type Refusal struct{ Message string }

func (r *Refusal) Error() string        { return r.Message }
func (r *Refusal) Is(target error) bool { return target == ErrRefused }

// WithGuard returns a copy of the session whose tools go through g: the agent gives each
// tool call its own, so that a question to the user names the call it is about.
func (s *Session) WithGuard(g Guard) *Session {
	c := *s
	c.Guard = g
	return &c
}

// checkCommand asks the guard whether c may run; msg is for the model when not.
func (s *Session) checkCommand(ctx context.Context, c Command) (msg string, err error) {
	if s.Guard == nil {
		return "", nil
	}
	err = s.Guard.Command(ctx, c)
	if r, ok := errors.AsType[*Refusal](err); ok {
		return r.Message, nil
	}
	return "", err
}

// write writes change through the guard and the Env, and remembers the new content as
// seen. msg is for the model when the guard refused.
func (s *Session) write(ctx context.Context, change Change) (msg string, err error) {
	write := func(ctx context.Context) error { return s.Env.WriteFile(ctx, change.Path, change.New) }
	if s.Guard != nil {
		err = s.Guard.Write(ctx, change, write)
	} else {
		err = write(ctx)
	}
	if r, ok := errors.AsType[*Refusal](err); ok {
		return r.Message, nil
	}
	if err == nil {
		s.Reads.Record(change.Path, change.New)
	}
	return "", err
}
