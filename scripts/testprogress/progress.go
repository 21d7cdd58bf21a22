package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent, with the build events
// go test adds since Go 1.24).
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string // build-output and build-fail
	FailedBuild string
}

// pkgState is what is known of one package's run.
type pkgState struct {
	started   time.Time
	running   map[string]bool     // top-level tests running now (not paused)
	pending   map[string][]string // top-level test: its lines and its subtests', until it ends
	own       []string            // lines outside any test (ok/FAIL, a panic, a timeout)
	announced bool                // its start is said at its first test: a package without tests says nothing
	passed    int
	failed    []string
	lastNote  time.Time
}

// progress turns go test's events into the lines scripts/test prints. Its methods are
// safe to call from the reader and the heartbeat at once.
type progress struct {
	mu      sync.Mutex
	out     io.Writer
	verbose bool
	now     func() time.Time
	begun   time.Time
	said    time.Time // when a line was last printed

	pkgs     map[string]*pkgState
	builds   map[string][]string // a package's build output, until its build ends
	ok       int
	failed   int // packages
	noTests  int
	failures []string // "pkg TestName" or "pkg (build)" / "pkg" for a failure outside tests
}

func newProgress(out io.Writer, verbose bool, now func() time.Time) *progress {
	t := now()
	return &progress{out: out, verbose: verbose, now: now, begun: t, said: t,
		pkgs: map[string]*pkgState{}, builds: map[string][]string{}}
}

// printf prints a line; p.mu is held.
func (p *progress) printf(format string, args ...any) {
	fmt.Fprintf(p.out, format, args...)
	p.said = p.now()
}

// line takes one line of go test's output.
func (p *progress) line(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var e event
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &e) != nil || e.Action == "" {
		p.printf("%s\n", b) // not an event (go test prints some things as they are)
		return
	}
	if p.verbose && e.Output != "" {
		fmt.Fprint(p.out, e.Output)
		p.said = p.now()
	}
	switch e.Action {
	case "build-output":
		p.builds[e.ImportPath] = append(p.builds[e.ImportPath], e.Output)
	case "build-fail":
		if !p.verbose {
			for _, l := range p.builds[e.ImportPath] {
				p.printf("%s", l)
			}
		}
		delete(p.builds, e.ImportPath)
	default:
		p.testEvent(e)
	}
}

func (p *progress) pkg(name string) *pkgState {
	s := p.pkgs[name]
	if s == nil {
		s = &pkgState{started: p.now(), running: map[string]bool{}, pending: map[string][]string{}}
		p.pkgs[name] = s
	}
	return s
}

// testEvent takes an event of a package's test run; p.mu is held.
func (p *progress) testEvent(e event) {
	s := p.pkg(e.Package)
	if e.Test == "" {
		p.packageEvent(e, s)
		return
	}
	top, _, sub := strings.Cut(e.Test, "/")
	if !s.announced {
		s.announced = true
		p.printf("start %s\n", e.Package)
	}
	switch e.Action {
	case "output":
		if !framing(e.Output) {
			s.pending[top] = append(s.pending[top], e.Output)
		}
	case "run", "cont":
		if !sub {
			s.running[top] = true
		}
	case "pause":
		if !sub {
			delete(s.running, top)
		}
	case "pass", "skip", "fail":
		if sub {
			return // its lines wait for its top-level test, which fails with it
		}
		delete(s.running, top)
		if e.Action == "fail" {
			s.failed = append(s.failed, top)
			p.failures = append(p.failures, e.Package+" "+top)
			if !p.verbose {
				for _, l := range s.pending[top] {
					p.printf("%s", l)
				}
			}
		} else {
			s.passed++
		}
		delete(s.pending, top)
	}
}

// framing reports whether a test's line only frames its output (the interleaving of
// parallel tests), which go test without -v does not print either.
func framing(line string) bool {
	for _, f := range []string{"=== PAUSE ", "=== CONT ", "=== NAME "} {
		if strings.HasPrefix(line, f) {
			return true
		}
	}
	return false
}

// packageEvent takes an event of a package outside its tests; p.mu is held.
func (p *progress) packageEvent(e event, s *pkgState) {
	switch e.Action {
	case "start":
		s.started = p.now()
	case "output":
		s.own = append(s.own, e.Output)
	case "skip": // no test files
		p.noTests++
		delete(p.pkgs, e.Package)
	case "pass":
		p.ok++
		note := ""
		if cached(s.own) {
			note = " (cached)"
		}
		p.printf("ok    %s %s%s\n", e.Package, seconds(e.Elapsed), note)
		delete(p.pkgs, e.Package)
	case "fail":
		p.packageFailed(e, s)
		delete(p.pkgs, e.Package)
	}
}

// packageFailed prints what a failed package said that no failed test did: the output of
// the tests that never ended (a timeout or a panic ends the binary under them) and its own.
func (p *progress) packageFailed(e event, s *pkgState) {
	p.failed++
	if !p.verbose {
		for _, top := range sortedKeys(s.pending) {
			for _, l := range s.pending[top] {
				p.printf("%s", l)
			}
		}
		for _, l := range s.own {
			if !strings.HasPrefix(l, "FAIL\t") && l != "FAIL\n" {
				p.printf("%s", l)
			}
		}
	}
	what := ""
	switch {
	case e.FailedBuild != "":
		what = " (build failed: " + e.FailedBuild + ")"
		p.failures = append(p.failures, e.Package+" (build)")
	case len(s.failed) == 0:
		what = " (outside any test: see above)"
		p.failures = append(p.failures, e.Package)
	}
	p.printf("FAIL  %s %s%s\n", e.Package, seconds(e.Elapsed), what)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func cached(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "(cached)") {
			return true
		}
	}
	return false
}

func seconds(s float64) string { return fmt.Sprintf("%.1fs", s) }

// idle is called now and then: for each package that has run a heartbeat without a line
// about it, it says how far it got and what runs.
func (p *progress) idle(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Sub(p.said) < heartbeat {
		return
	}
	for _, name := range sortedKeys(p.pkgs) {
		s := p.pkgs[name]
		if now.Sub(s.started) < heartbeat || now.Sub(s.lastNote) < heartbeat {
			continue
		}
		s.lastNote = now
		running := sortedKeys(s.running)
		if len(running) > 4 {
			running = append(running[:4], fmt.Sprintf("%d more", len(running)-4))
		}
		line := fmt.Sprintf("...   %s %s: %d tests passed", name, now.Sub(s.started).Round(time.Second), s.passed)
		if len(s.failed) > 0 {
			line += fmt.Sprintf(", %d failed", len(s.failed))
		}
		if len(running) > 0 {
			line += "; running " + strings.Join(running, ", ")
		}
		p.printf("%s\n", line)
	}
}

// summary says how the whole run went.
func (p *progress) summary() {
	p.mu.Lock()
	defer p.mu.Unlock()
	took := p.now().Sub(p.begun).Round(time.Second)
	p.printf("%d packages passed, %d failed, %d without tests, in %v\n", p.ok, p.failed, p.noTests, took)
	if len(p.failures) > 0 {
		p.printf("what failed:\n")
		for _, f := range p.failures {
			p.printf("  %s\n", f)
		}
	}
}
