package cli

import (
	"log/slog"
	"strings"
	"testing"
)

func TestUnconfinedPlatformsSaySo(t *testing.T) {
	if got := unconfinedHelpFor(false, "Windows"); !strings.Contains(got, "On Windows the agent and the commands it runs (itself or through parley) are not\nconfined") {
		t.Errorf("help on Windows: %q", got)
	}
	if got := unconfinedHelpFor(true, "linux"); got != "" {
		t.Errorf("help on Linux: %q, want nothing more", got)
	}
	if got := sandboxFlagHelpFor(false, "macOS", "the commands"); !strings.Contains(got, "on macOS they are never confined") {
		t.Errorf("--sandbox on macOS: %q", got)
	}
	for _, c := range []struct {
		supported bool
		mode      string
		warns     bool
	}{{false, "auto", true}, {false, "off", false}, {true, "auto", false}} {
		var log strings.Builder
		warnUnconfinedFor(c.supported, "macOS", slog.New(slog.NewTextHandler(&log, nil)), c.mode)
		if warned := strings.Contains(log.String(), "level=WARN") && strings.Contains(log.String(), "not confined on macOS"); warned != c.warns {
			t.Errorf("supported %v, --sandbox %s: log %q, want a warning: %v", c.supported, c.mode, log.String(), c.warns)
		}
	}
}

// On macOS --sandbox says what confines there; Linux's help is what it was.
func TestSandboxFlagHelpNamesTheMechanism(t *testing.T) {
	if got := sandboxFlagHelpFor(true, "macOS", "the commands"); !strings.Contains(got, "with Seatbelt, macOS's sandbox-exec") {
		t.Errorf("--sandbox on macOS: %q", got)
	}
	if got, want := sandboxFlagHelpFor(true, "linux", "the commands"), "confine the commands with Landlock (a `MODE`): auto (where the kernel offers it) or off"; got != want {
		t.Errorf("--sandbox on Linux: %q, want %q", got, want)
	}
}
