package webui

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// pollEvery is how often Watch reads the named tokens' file even without word from the
// file system: the backstop for open connections where the watch is not told (a network
// file system, a watch that failed). Every new authorisation reads the file anyway.
const pollEvery = 2 * time.Second

// Watch ends what a revoked named token let in as soon as the file changes: it watches
// the file's directory (the file is replaced by a rename, which a watch on the file
// itself would lose), and reads the file every pollEvery besides. It returns when ctx
// ends; without named tokens (UseTokens not called) at once.
func (a *Auth) Watch(ctx context.Context) {
	a.mu.Lock()
	t, poll := a.tokens, a.poll
	a.mu.Unlock()
	if t == nil {
		return
	}
	var events <-chan fsnotify.Event
	var errs <-chan error
	w, err := fsnotify.NewWatcher()
	if err == nil {
		defer w.Close()
		dir := filepath.Dir(t.Path())
		if err = os.MkdirAll(dir, 0o700); err == nil {
			err = w.Add(dir)
		}
		if err == nil {
			events, errs = w.Events, w.Errors
		}
	}
	if err != nil {
		a.logger.Warn("web: the named tokens' file is not watched; a revocation reaches open connections within "+pollEvery.String(), "error", err)
	}
	a.Refresh() // what changed before the watch began
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if filepath.Base(ev.Name) == TokensFile {
				a.Refresh()
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			a.logger.Warn("web: watching the named tokens' file", "error", err)
		case <-tick.C:
			a.Refresh()
		}
	}
}
