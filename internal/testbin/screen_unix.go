//go:build !windows

package testbin

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"image/color"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// Screen is a program running on a pseudo-terminal, drawn by a terminal emulator that
// keeps every cell with its attributes: a test reads what a person would see (text,
// bold, colours, the alternate screen), types at it, pastes into it and resizes it.
// Waiting is on the program's output, never on time; every wait has a hang guard.
type Screen struct {
	t   testing.TB
	pty *os.File
	cmd *exec.Cmd
	emu *vt.SafeEmulator
	fg  color.Color // the terminal's default colours, as it reports them when asked
	bg  color.Color

	mu      sync.Mutex
	changed *sync.Cond
	raw     bytes.Buffer // everything the program wrote
	ended   bool         // the program's output is over
	exit    chan error   // the program's exit, once
	readers sync.WaitGroup
}

// ScreenTimeout is how long a wait may take before the test fails (a hang guard).
var ScreenTimeout = 30 * time.Second

// StartScreen starts cmd on a new pseudo-terminal of cols×rows, a dark one, and follows
// its output. The test's cleanup ends it.
func StartScreen(t testing.TB, cmd *exec.Cmd, cols, rows int) *Screen {
	t.Helper()
	return StartScreenColors(t, cmd, cols, rows, color.RGBA{0xd0, 0xd0, 0xd0, 0xff}, color.RGBA{0x1d, 0x1f, 0x21, 0xff})
}

// StartScreenColors is StartScreen on a terminal whose default colours are fg and bg: what
// it answers a program that asks (OSC 10 and 11), and what its pictures are drawn with.
func StartScreenColors(t testing.TB, cmd *exec.Cmd, cols, rows int, fg, bg color.Color) *Screen {
	t.Helper()
	emu := vt.NewSafeEmulator(cols, rows)
	emu.SetDefaultForegroundColor(fg)
	emu.SetDefaultBackgroundColor(bg)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatalf("starting %v on a terminal: %v", cmd.Args, err)
	}
	s := &Screen{t: t, pty: f, cmd: cmd, emu: emu, fg: fg, bg: bg, exit: make(chan error, 1)}
	s.changed = sync.NewCond(&s.mu)
	s.readers.Add(2)
	go s.readOutput()
	go s.answerQueries()
	go func() { s.exit <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		select {
		case <-s.exit:
		case <-time.After(ScreenTimeout):
		}
		f.Close()
		// The emulator's Close is not safe beside a Read in progress: closing its input
		// pipe ends the Read the same way.
		if c, ok := s.emu.InputPipe().(io.Closer); ok {
			c.Close()
		}
		s.readers.Wait()
	})
	return s
}

// readOutput feeds the emulator with what the program writes.
func (s *Screen) readOutput() {
	defer s.readers.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := s.pty.Read(buf)
		s.mu.Lock()
		if n > 0 {
			s.raw.Write(buf[:n])
			s.emu.Write(buf[:n])
		}
		if err != nil {
			s.ended = true
		}
		s.changed.Broadcast()
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// answerQueries sends the emulator's answers (to the program's queries of the
// terminal's size, colours and capabilities) back as input, as a terminal does.
func (s *Screen) answerQueries() {
	defer s.readers.Done()
	buf := make([]byte, 4096)
	for {
		n, err := s.emu.Read(buf)
		if n > 0 {
			s.pty.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// Type sends text as typed keys (control characters included: "\r" is Enter, "\x03"
// is Ctrl-C).
func (s *Screen) Type(text string) {
	s.t.Helper()
	if _, err := io.WriteString(s.pty, text); err != nil {
		s.t.Fatalf("typing %q: %v", text, err)
	}
}

// Paste sends text as a bracketed paste, as a terminal does when the program has asked
// for it.
func (s *Screen) Paste(text string) {
	s.Type("\x1b[200~" + text + "\x1b[201~")
}

// Resize changes the terminal's size (the program gets SIGWINCH).
func (s *Screen) Resize(cols, rows int) {
	s.t.Helper()
	s.mu.Lock()
	s.emu.Resize(cols, rows)
	s.mu.Unlock()
	if err := pty.Setsize(s.pty, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		s.t.Fatalf("resizing: %v", err)
	}
}

// Text is the screen as text, one line per row, trailing spaces cut.
func (s *Screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.textLocked()
}

func (s *Screen) textLocked() string {
	var b strings.Builder
	w, h := s.emu.Width(), s.emu.Height()
	for y := range h {
		var line strings.Builder
		for x := 0; x < w; x++ {
			c := s.emu.CellAt(x, y)
			switch {
			case c == nil:
				line.WriteByte(' ')
			case c.Width == 0:
			case c.Content == "":
				line.WriteByte(' ')
			default:
				line.WriteString(c.Content)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// Raw is everything the program wrote so far.
func (s *Screen) Raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw.String()
}

// WaitFor waits until ok accepts the screen's text, and returns that text. It fails the
// test if the program ends first or the hang guard strikes.
func (s *Screen) WaitFor(what string, ok func(screen string) bool) string {
	s.t.Helper()
	return s.wait("the screen never showed "+what, s.textLocked, ok)
}

// WaitRaw waits until ok accepts everything the program wrote (escape sequences
// included), and returns it.
func (s *Screen) WaitRaw(what string, ok func(raw string) bool) string {
	s.t.Helper()
	return s.wait("the program never wrote "+what, s.raw.String, ok)
}

// wait waits, under s.mu, until ok accepts what read returns, as the program writes.
func (s *Screen) wait(failure string, read func() string, ok func(string) bool) string {
	s.t.Helper()
	guard := time.AfterFunc(ScreenTimeout, func() {
		s.mu.Lock()
		s.ended = true
		s.changed.Broadcast()
		s.mu.Unlock()
	})
	defer guard.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		got := read()
		if ok(got) {
			return got
		}
		if s.ended {
			s.t.Fatalf("%s; the screen shows:\n%s", failure, s.textLocked())
		}
		s.changed.Wait()
	}
}

// WaitText waits until the screen shows want.
func (s *Screen) WaitText(want string) string {
	s.t.Helper()
	return s.WaitFor(fmt.Sprintf("%q", want), func(text string) bool { return strings.Contains(text, want) })
}

// WaitGone waits until the screen no longer shows text.
func (s *Screen) WaitGone(text string) string {
	s.t.Helper()
	return s.WaitFor(fmt.Sprintf("no %q", text), func(screen string) bool { return !strings.Contains(screen, text) })
}

// Find returns where text starts on the screen.
func (s *Screen) Find(text string) (x, y int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := strings.Split(s.textLocked(), "\n")
	for y, l := range lines {
		if i := strings.Index(l, text); i >= 0 {
			// Cells, not bytes: count the runes before it (the screens tests read are
			// mostly one cell per rune).
			return len([]rune(l[:i])), y, true
		}
	}
	return 0, 0, false
}

// Cell returns the cell at x, y.
func (s *Screen) Cell(x, y int) uv.Cell {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.emu.CellAt(x, y); c != nil {
		return *c
	}
	return uv.Cell{}
}

// Bold reports whether the cell at x, y is bold.
func (s *Screen) Bold(x, y int) bool { return s.Cell(x, y).Style.Attrs&uv.AttrBold != 0 }

// Foreground is the colour of the text at x, y (nil: the terminal's default).
func (s *Screen) Foreground(x, y int) color.Color { return s.Cell(x, y).Style.Fg }

// AltScreen reports whether the program drew on the alternate screen.
func (s *Screen) AltScreen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.IsAltScreen()
}

// Wait waits for the program to exit and returns its exit status.
func (s *Screen) Wait() int {
	s.t.Helper()
	select {
	case err := <-s.exit:
		s.exit <- err
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			return ee.ExitCode()
		}
		s.t.Fatalf("waiting for the program: %v", err)
	case <-time.After(ScreenTimeout):
		s.t.Fatalf("the program did not exit; the screen shows:\n%s", s.Text())
	}
	return -1
}

// HTML is the screen as an HTML page (cells with their colours and attributes), for a
// browser to turn into a picture a person can look at.
func (s *Screen) HTML() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><meta charset="utf-8"><style>body{margin:0;background:%[2]s}`+
		`pre{margin:0;padding:8px;font:14px/17px "DejaVu Sans Mono",monospace;color:%[1]s;background:%[2]s}</style><pre>`, hexColor(s.fg), hexColor(s.bg))
	w, h := s.emu.Width(), s.emu.Height()
	for y := range h {
		for x := 0; x < w; x++ {
			c := s.emu.CellAt(x, y)
			if c == nil || c.Width == 0 && c.Content == "" && x > 0 {
				if c == nil {
					b.WriteByte(' ')
				}
				continue
			}
			content := c.Content
			if content == "" {
				content = " "
			}
			st := c.Style
			var css []string
			fg, bg := st.Fg, st.Bg
			if st.Attrs&uv.AttrReverse != 0 {
				fg, bg = bg, fg
				if fg == nil {
					fg = s.bg
				}
				if bg == nil {
					bg = s.fg
				}
			}
			if fg != nil {
				css = append(css, "color:"+hexColor(fg))
			}
			if bg != nil {
				css = append(css, "background:"+hexColor(bg))
			}
			if st.Attrs&uv.AttrBold != 0 {
				css = append(css, "font-weight:bold")
			}
			if st.Attrs&uv.AttrFaint != 0 {
				css = append(css, "opacity:.6")
			}
			if st.Attrs&uv.AttrItalic != 0 {
				css = append(css, "font-style:italic")
			}
			if st.Underline != 0 {
				css = append(css, "text-decoration:underline")
			}
			if st.Attrs&uv.AttrStrikethrough != 0 {
				css = append(css, "text-decoration:line-through")
			}
			if len(css) == 0 {
				b.WriteString(html.EscapeString(content))
				continue
			}
			fmt.Fprintf(&b, `<span style="%s">%s</span>`, strings.Join(css, ";"), html.EscapeString(content))
		}
		b.WriteByte('\n')
	}
	b.WriteString("</pre>")
	return b.String()
}

func hexColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// SavePNG renders the screen to a PNG file with a headless browser, when one is
// installed (chromium); it reports false, and writes the HTML beside, when none is.
func (s *Screen) SavePNG(path string) bool {
	page := strings.TrimSuffix(path, ".png") + ".html"
	if err := os.WriteFile(page, []byte(s.HTML()), 0o644); err != nil {
		return false
	}
	browser, err := exec.LookPath("chromium")
	if err != nil {
		return false
	}
	w, h := s.emu.Width()*9+16, s.emu.Height()*17+16
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		fmt.Sprintf("--window-size=%d,%d", w, h), "--screenshot="+path, "file://"+page)
	return cmd.Run() == nil
}

// Pid is the program's process id.
func (s *Screen) Pid() int { return s.cmd.Process.Pid }
