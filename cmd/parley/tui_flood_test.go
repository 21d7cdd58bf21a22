//go:build !windows

package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/testbin"
)

// BenchmarkChatFlood is parley chat on a terminal with parley eliza's `flood 100000`:
// the time from Enter until the last chunk is on screen and the chat takes input again,
// for the terminal UI and for the line interface in the same run (both drawn by the same
// terminal emulator). For the UI it also reports how long a key typed at the start of
// the flood takes to show in the composer (keystroke-ms), and its CPU use while idle
// afterwards (idle-cpu-%, over two seconds).
//
//	go test -run XXX -bench ChatFlood -benchtime 3x ./cmd/parley
func BenchmarkChatFlood(b *testing.B) {
	const n = 100_000
	last := strconv.Itoa(n - 1)
	for _, mode := range []string{"tui", "line"} {
		b.Run(mode, func(b *testing.B) {
			var total, keys time.Duration
			var idle float64
			runs := 0
			for b.Loop() {
				dir := b.TempDir()
				args := []string{"chat", "--agent", "eliza"}
				term := "xterm-256color"
				if mode == "line" {
					term = "dumb"
				}
				cmd := exec.Command(self(b), args...)
				cmd.Env = append(envWithout("TERM", "NO_COLOR"), "PARLEY_TEST_ROLE=parley", "TERM="+term)
				cmd.Env = append(cmd.Env, testbin.HomeEnv(b.TempDir())...)
				cmd.Dir = dir
				s := testbin.StartScreen(b, cmd, 120, 40)
				s.WaitText("ready")
				start := time.Now()
				s.Type("flood " + strconv.Itoa(n) + "\r")
				if mode == "tui" {
					s.Type("x")
					s.WaitFor("the key in the composer", func(screen string) bool { return composerLine(screen) == "› x" })
					keys += time.Since(start)
					s.WaitFor("the last chunk, and the chat ready", func(screen string) bool {
						return strings.Contains(screen, last) && strings.Contains(screen, "● ready")
					})
				} else {
					s.WaitFor("the last chunk, and the prompt", func(screen string) bool {
						i := strings.LastIndex(screen, last)
						return i >= 0 && strings.Contains(screen[i:], "›")
					})
				}
				total += time.Since(start)
				if mode == "tui" {
					idle += cpuPercent(b, s.Pid(), 2*time.Second)
				}
				runs++
				s.Type("\x03\x03")
				if mode == "line" {
					s.Type("\x04")
				}
				s.Wait()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(runs), "flood-ms")
			if mode == "tui" {
				b.ReportMetric(float64(keys.Milliseconds())/float64(runs), "keystroke-ms")
				b.ReportMetric(idle/float64(runs), "idle-cpu-%")
			}
		})
	}
}

func envWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			if k == n {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// cpuPercent is the CPU time pid used over d, in percent of one core (Linux: /proc).
func cpuPercent(tb testing.TB, pid int, d time.Duration) float64 {
	ticks := func() float64 {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			tb.Skipf("no /proc here: %v", err)
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
		u, _ := strconv.ParseFloat(f[11], 64) // utime, stime: fields 14 and 15
		s, _ := strconv.ParseFloat(f[12], 64)
		return u + s
	}
	before := ticks()
	time.Sleep(d) // measuring over a span of time is the point here
	return (ticks() - before) / 100 / d.Seconds() * 100
}
