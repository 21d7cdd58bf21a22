package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/linechat"
)

// browserWait is how long openInBrowser waits to hear that the browser failed; a
// browser still running then is taken as opening the page.
const browserWait = 10 * time.Second

// openInBrowser opens an http or https page in the user's browser: $BROWSER (a command
// line; the address is its last argument), else the system's opener. The address is one
// argument, never through a shell, and is checked first (conversation.CheckPageURL):
// whatever asked for it, a javascript:, file: or vscode: address is not opened. What the
// command line holds any process of the machine can read: give it nothing secret that
// lasts (parley web gives it a one-time code).
func openInBrowser(addr string) error {
	if err := conversation.CheckPageURL(addr); err != nil {
		return fmt.Errorf("parley will not open it: %w", err)
	}
	argv := browserCommand()
	cmd := exec.Command(argv[0], append(argv[1:], addr)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }() // a browser may outlive parley: only its exit is collected
	select {
	case err := <-ended:
		if err == nil {
			return nil
		}
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("%s: %w: %s", argv[0], err, linechat.OneLineSafe(msg))
		}
		return fmt.Errorf("%s: %w", argv[0], err)
	case <-time.After(browserWait):
		return nil // still running: a browser started by its own command, not an opener
	}
}

// browserCommand is $BROWSER split into words, else the system's opener.
func browserCommand() []string {
	if b := strings.Fields(os.Getenv("BROWSER")); len(b) > 0 {
		return b
	}
	switch runtime.GOOS {
	case "darwin":
		return []string{"open"}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler"}
	default:
		return []string{"xdg-open"}
	}
}
