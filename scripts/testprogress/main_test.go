package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunPassesOnGoTestsStatusAndAFailuresWholeOutput runs the real go test on a module
// of its own: a package whose tests pass, one with a failing subtest beside a passing
// test that logs, one that does not build and one without tests.
func TestRunPassesOnGoTestsStatusAndAFailuresWholeOutput(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.24\n",
		"good/good.go":      "package good\n",
		"good/a_test.go":    "package good\n\nimport \"testing\"\n\nfunc TestFine(t *testing.T) { t.Log(\"fine and quiet\") }\n",
		"bad/bad.go":        "package bad\n",
		"bad/a_test.go":     "package bad\n\nimport \"testing\"\n\nfunc TestQuiet(t *testing.T) { t.Log(\"not printed\") }\n\nfunc TestBroken(t *testing.T) {\n\tt.Log(\"before the subtests\")\n\tt.Run(\"ok\", func(t *testing.T) {})\n\tt.Run(\"wrong\", func(t *testing.T) { t.Errorf(\"got %d, want %d\", 1, 2) })\n}\n",
		"nobuild/x.go":      "package nobuild\n\nfunc f() int { return \"not an int\" }\n",
		"nobuild/x_test.go": "package nobuild\n",
		"empty/e.go":        "package empty\n",
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := run([]string{"-count=1", "./..."}, &out, &errb)
	got := out.String()
	t.Logf("stdout:\n%s\nstderr:\n%s", got, errb.String())
	if code != 1 {
		t.Errorf("exit %d, want go test's 1", code)
	}
	for _, want := range []string{
		"start example.com/m/good\n", "ok    example.com/m/good ",
		"start example.com/m/bad\n", "before the subtests", "--- FAIL: TestBroken ", "--- FAIL: TestBroken/wrong ", "got 1, want 2", "FAIL  example.com/m/bad ",
		"cannot use \"not an int\"", "FAIL  example.com/m/nobuild ",
		"1 packages passed, 2 failed, 1 without tests",
		"  example.com/m/bad TestBroken\n", "  example.com/m/nobuild (build)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	for _, unwanted := range []string{"fine and quiet", "not printed", "=== PAUSE", "example.com/m/empty"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("stdout has %q, which go test without -v does not print", unwanted)
		}
	}

	out.Reset()
	if code := run([]string{"-count=1", "./good"}, &out, &errb); code != 0 {
		t.Errorf("a passing run: exit %d, want 0\n%s", code, out.String())
	}
}

// TestAPackageThatEndsUnderItsTestsPrintsThem: a timeout or a panic ends the test binary
// while tests run; their lines and the package's own (the panic) are printed.
func TestAPackageThatEndsUnderItsTestsPrintsThem(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, false, time.Now)
	for _, l := range []string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestSlow"}`,
		`{"Action":"output","Package":"p","Test":"TestSlow","Output":"=== RUN   TestSlow\n"}`,
		`{"Action":"output","Package":"p","Test":"TestSlow","Output":"    slow_test.go:9: still waiting\n"}`,
		`{"Action":"output","Package":"p","Output":"panic: test timed out after 1s\n"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t1.0s\n"}`,
		`{"Action":"fail","Package":"p","Elapsed":1}`,
	} {
		p.line([]byte(l))
	}
	got := out.String()
	for _, want := range []string{"still waiting", "panic: test timed out after 1s", "FAIL  p 1.0s (outside any test: see above)"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestALongPackageSaysHowFarItGot: after a heartbeat with nothing printed, a line says
// what the package has done and which tests run; a paused test does not count as running.
func TestALongPackageSaysHowFarItGot(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	p := newProgress(&out, false, func() time.Time { return now })
	for _, l := range []string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestDone"}`,
		`{"Action":"pass","Package":"p","Test":"TestDone"}`,
		`{"Action":"run","Package":"p","Test":"TestWaiting"}`,
		`{"Action":"pause","Package":"p","Test":"TestWaiting"}`,
		`{"Action":"run","Package":"p","Test":"TestLong"}`,
	} {
		p.line([]byte(l))
	}
	out.Reset()
	p.idle(now.Add(heartbeat / 2))
	if out.Len() != 0 {
		t.Errorf("a line before the heartbeat: %q", out.String())
	}
	p.idle(now.Add(heartbeat + time.Second))
	if got, want := out.String(), "...   p 31s: 1 tests passed; running TestLong\n"; got != want {
		t.Errorf("heartbeat line %q, want %q", got, want)
	}
}
