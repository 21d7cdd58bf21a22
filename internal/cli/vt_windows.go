package cli

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// enableEscapes has the Windows consoles among ws interpret the ANSI escape sequences the
// live renderer writes (colours, redrawing a tool call in place), and returns what puts
// their modes back. Windows 10 and later, which Go requires, document
// ENABLE_VIRTUAL_TERMINAL_PROCESSING for this; a console shares its mode with the shell,
// hence the restore.
func enableEscapes(ws ...io.Writer) (restore func()) {
	type saved struct {
		h    windows.Handle
		mode uint32
	}
	var done []saved
	for _, w := range ws {
		f, ok := w.(*os.File)
		if !ok {
			continue
		}
		h := windows.Handle(f.Fd())
		var mode uint32
		if windows.GetConsoleMode(h, &mode) != nil || mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
			continue // not a console, or one that already interprets them
		}
		if windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil {
			done = append(done, saved{h, mode})
		}
	}
	return func() {
		for _, s := range done {
			windows.SetConsoleMode(s.h, s.mode)
		}
	}
}
