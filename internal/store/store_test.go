package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestMain lets the test binary act as a second parley process that opens a database
// (PARLEY_STORE_HELPER=lookup|remember), the re-exec trick cmd/parley's tests use.
func TestMain(m *testing.M) {
	switch os.Getenv("PARLEY_STORE_HELPER") {
	case "lookup":
		os.Exit(helperLookup(os.Args[1]))
	case "remember":
		os.Exit(helperRemember(os.Args[1]))
	}
	os.Exit(m.Run())
}

func helperLookup(path string) int {
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	r, ok, err := s.Lookup(context.Background(), "codex", "/srv/a", "execute:go")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%v %s\n", ok, r.Decision)
	return 0
}

func helperRemember(path string) int {
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	if err := s.Remember(context.Background(), Rule{Agent: "claude", Workspace: "/srv/b", ToolKey: "edit:Write", Decision: Reject}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// helper runs the test binary as another process on the database at path.
func helper(t *testing.T, role, path string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, path)
	cmd.Env = append(os.Environ(), "PARLEY_STORE_HELPER="+role)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s helper: %v\n%s", role, err, stderr)
	}
	return strings.TrimSpace(string(out))
}

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nested", "dir", "parley.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	s, path := openTemp(t)
	if err := s.Remember(t.Context(), Rule{Agent: "a", Workspace: "/w", ToolKey: "k", Decision: Allow}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600, path + "-wal": 0o600} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
}

func TestConnectionSettings(t *testing.T) {
	s, _ := openTemp(t)
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"synchronous":  "1", // NORMAL
		"busy_timeout": "5000",
		"foreign_keys": "1",
		"user_version": fmt.Sprint(len(mustMigrations(t))),
	} {
		var got string
		if err := s.db.QueryRowContext(t.Context(), "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
	if n := s.db.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("MaxOpenConnections = %d, want 1", n)
	}
}

func TestPathWithURICharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a dir?x=1#frag%20", "parley.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not where it was asked to be: %v", err)
	}
	if err := s.Remember(t.Context(), Rule{Agent: "a", Workspace: "/w", ToolKey: "k", Decision: Allow}); err != nil {
		t.Fatal(err)
	}
}

func TestRememberLookupReplace(t *testing.T) {
	s, _ := openTemp(t)
	ctx := t.Context()
	if _, ok, err := s.Lookup(ctx, "codex", "/w", "execute:go"); err != nil || ok {
		t.Fatalf("Lookup on an empty store = %v, %v", ok, err)
	}
	at := time.UnixMilli(1_700_000_000_000)
	if err := s.Remember(ctx, Rule{Agent: "codex", Workspace: "/w", ToolKey: "execute:go", Decision: Allow, CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Lookup(ctx, "codex", "/w", "execute:go")
	if err != nil || !ok {
		t.Fatalf("Lookup = %v, %v", ok, err)
	}
	want := Rule{Agent: "codex", Workspace: "/w", ToolKey: "execute:go", Decision: Allow, CreatedAt: at}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
	// The same key again replaces the decision.
	if err := s.Remember(ctx, Rule{Agent: "codex", Workspace: "/w", ToolKey: "execute:go", Decision: Reject}); err != nil {
		t.Fatal(err)
	}
	got, _, _ = s.Lookup(ctx, "codex", "/w", "execute:go")
	if got.Decision != Reject || !got.CreatedAt.After(at) {
		t.Errorf("after replacing: %+v", got)
	}
	// Other agents, workspaces and keys are separate.
	for _, k := range [][3]string{{"claude", "/w", "execute:go"}, {"codex", "/v", "execute:go"}, {"codex", "/w", "execute:rm"}} {
		if _, ok, _ := s.Lookup(ctx, k[0], k[1], k[2]); ok {
			t.Errorf("Lookup%v found a rule remembered for another key", k)
		}
	}
}

func TestRememberRejectsBadRules(t *testing.T) {
	s, _ := openTemp(t)
	for _, r := range []Rule{
		{Workspace: "/w", ToolKey: "k", Decision: Allow},
		{Agent: "a", ToolKey: "k", Decision: Allow},
		{Agent: "a", Workspace: "/w", Decision: Allow},
		{Agent: "a", Workspace: "/w", ToolKey: "k", Decision: "ask"},
		{Agent: "a", Workspace: "/w", ToolKey: "k"},
	} {
		if err := s.Remember(t.Context(), r); err == nil {
			t.Errorf("Remember(%+v) succeeded", r)
		}
	}
	// The CHECK constraint holds even for a writer that skips Remember's checks.
	_, err := s.db.ExecContext(t.Context(), `INSERT INTO permission_rules VALUES ('a', '/w', 'k', 'maybe', 0)`)
	if err == nil {
		t.Error("the table accepted decision 'maybe'")
	}
}

func TestListAndResetWithFilters(t *testing.T) {
	s, _ := openTemp(t)
	ctx := t.Context()
	rules := []Rule{
		{Agent: "codex", Workspace: "/a", ToolKey: "execute:go", Decision: Allow},
		{Agent: "codex", Workspace: "/b", ToolKey: "execute:rm", Decision: Reject},
		{Agent: "claude", Workspace: "/a", ToolKey: "edit:Write", Decision: Allow},
		{Agent: "claude", Workspace: "/b", ToolKey: "fetch:WebFetch", Decision: Reject},
	}
	for _, r := range rules {
		if err := s.Remember(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(rs []Rule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Agent+" "+r.Workspace+" "+r.ToolKey)
		}
		return out
	}
	for _, tc := range []struct {
		filter RuleFilter
		want   []string
	}{
		{RuleFilter{}, []string{"claude /a edit:Write", "claude /b fetch:WebFetch", "codex /a execute:go", "codex /b execute:rm"}},
		{RuleFilter{Agent: "codex"}, []string{"codex /a execute:go", "codex /b execute:rm"}},
		{RuleFilter{Workspace: "/a"}, []string{"claude /a edit:Write", "codex /a execute:go"}},
		{RuleFilter{Agent: "claude", Workspace: "/b"}, []string{"claude /b fetch:WebFetch"}},
		{RuleFilter{Agent: "nobody"}, nil},
	} {
		got, err := s.ListRules(ctx, tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, keys(got)); diff != "" {
			t.Errorf("ListRules(%+v) (-want +got):\n%s", tc.filter, diff)
		}
	}

	if n, err := s.ResetRules(ctx, RuleFilter{Agent: "codex", Workspace: "/a"}); err != nil || n != 1 {
		t.Fatalf("ResetRules(codex, /a) = %d, %v; want 1", n, err)
	}
	if n, err := s.ResetRules(ctx, RuleFilter{Workspace: "/b"}); err != nil || n != 2 {
		t.Fatalf("ResetRules(/b) = %d, %v; want 2", n, err)
	}
	if n, err := s.ResetRules(ctx, RuleFilter{Agent: "nobody"}); err != nil || n != 0 {
		t.Fatalf("ResetRules(nobody) = %d, %v; want 0", n, err)
	}
	got, _ := s.ListRules(ctx, RuleFilter{})
	if diff := cmp.Diff([]string{"claude /a edit:Write"}, keys(got)); diff != "" {
		t.Errorf("left after resets (-want +got):\n%s", diff)
	}
	if n, err := s.ResetRules(ctx, RuleFilter{}); err != nil || n != 1 {
		t.Fatalf("ResetRules(all) = %d, %v; want 1", n, err)
	}
}

// A rule remembered by one process is seen by the next one, and by another process
// while the first still has the database open.
func TestPersistenceAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := helper(t, "lookup", path); got != "false" {
		t.Fatalf("another process saw %q before anything was remembered", got)
	}
	if err := s.Remember(t.Context(), Rule{Agent: "codex", Workspace: "/srv/a", ToolKey: "execute:go", Decision: Allow}); err != nil {
		t.Fatal(err)
	}
	if got := helper(t, "lookup", path); got != "true allow" {
		t.Errorf("another process, first still open: %q, want \"true allow\"", got)
	}
	helper(t, "remember", path)
	if _, ok, err := s.Lookup(t.Context(), "claude", "/srv/b", "edit:Write"); err != nil || !ok {
		t.Errorf("the first process does not see the other's rule: %v, %v", ok, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.ListRules(t.Context(), RuleFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{Agent: "claude", Workspace: "/srv/b", ToolKey: "edit:Write", Decision: Reject},
		{Agent: "codex", Workspace: "/srv/a", ToolKey: "execute:go", Decision: Allow},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Rule{}, "CreatedAt")); diff != "" {
		t.Errorf("after reopening (-want +got):\n%s", diff)
	}
	if helper(t, "lookup", path) != "true allow" {
		t.Error("a new process does not see the rule after the first closed")
	}
}

func TestConcurrentLookupsAndWrites(t *testing.T) {
	s, path := openTemp(t)
	ctx := t.Context()
	other, err := Open(path) // a second handle: another connection to the same file
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for i := range 10 {
		if err := s.Remember(ctx, Rule{Agent: "a", Workspace: "/w", ToolKey: fmt.Sprint("k", i), Decision: Allow}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		db := s
		if g%2 == 1 {
			db = other
		}
		wg.Go(func() {
			for i := range 50 {
				key := fmt.Sprint("k", i%10)
				r, ok, err := db.Lookup(ctx, "a", "/w", key)
				if err != nil || !ok || r.Decision != Allow {
					errs <- fmt.Errorf("Lookup(%s) = %+v, %v, %v", key, r, ok, err)
					return
				}
				if g%4 == 0 { // some writers among the readers
					if err := db.Remember(ctx, Rule{Agent: "w", Workspace: "/w", ToolKey: fmt.Sprint(g, "-", i), Decision: Reject}); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rules, err := s.ListRules(ctx, RuleFilter{Agent: "w"})
	if err != nil || len(rules) != 4*50 {
		t.Errorf("writers left %d rules (%v), want %d", len(rules), err, 4*50)
	}
}

func TestMigrationsAreIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	for range 3 {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.migrate(t.Context()); err != nil { // again on an open store
			t.Fatal(err)
		}
		if err := s.Remember(t.Context(), Rule{Agent: "a", Workspace: "/w", ToolKey: "k", Decision: Allow}); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version, tables, rules int
	db.QueryRow("PRAGMA user_version").Scan(&version)
	db.QueryRow("SELECT count(*) FROM sqlite_schema WHERE type = 'table'").Scan(&tables)
	db.QueryRow("SELECT count(*) FROM permission_rules").Scan(&rules)
	all := mustMigrations(t)
	if version != len(all) || tables != schemaTables || rules != 1 {
		t.Errorf("after three opens: user_version %d (want %d), %d tables, %d rules", version, len(all), tables, rules)
	}
}

func TestOpenConcurrentlyOnANewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			s, err := Open(path)
			if err != nil {
				errs <- err
				return
			}
			errs <- s.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestRefusesANewerSchema(t *testing.T) {
	s, path := openTemp(t)
	if _, err := s.db.ExecContext(t.Context(), "PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "upgrade parley") {
		t.Errorf("Open on schema version 99: %v", err)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg/data")
	if got := DefaultPath(); got != "/xdg/data/parley/parley.db" {
		t.Errorf("DefaultPath() = %s", got)
	}
}

// schemaTables is how many tables the migrations make.
const schemaTables = 11

func mustMigrations(t *testing.T) []migration {
	t.Helper()
	all, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// Migration 3 forgets the command decisions kept under the old, too wide keys
// ("execute:rm" covered every rm) and keeps the others.
func TestMigrationForgetsProgramWideCommandDecisions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	if err := create(path); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	v1, err := migrations.ReadFile("migrations/0001_permission_rules.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		string(v1), "PRAGMA user_version = 1",
		`INSERT INTO permission_rules VALUES ('codex', '/w', 'execute:rm', 'allow', 1)`,
		`INSERT INTO permission_rules VALUES ('codex', '/w', 'edit:Write', 'reject', 1)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rules, err := s.ListRules(t.Context(), RuleFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 || rules[0].ToolKey != "edit:Write" || rules[0].Decision != Reject || rules[0].Description != "" {
		t.Errorf("after the migration: %+v, want only edit:Write", rules)
	}
}

func TestRememberKeepsTheDescription(t *testing.T) {
	s, _ := openTemp(t)
	r := Rule{Agent: "a", Workspace: "/w", ToolKey: "execute:medium rm -f x", Description: "exactly `rm -f x`", Decision: Allow}
	if err := s.Remember(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Lookup(t.Context(), "a", "/w", r.ToolKey)
	if err != nil || !ok || got.Description != r.Description {
		t.Errorf("Lookup: %+v %v %v", got, ok, err)
	}
}
