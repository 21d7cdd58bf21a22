package main

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// parley web prints the address to open first, carrying the token; the address answers
// only with that token; Ctrl-C (SIGTERM here) ends it in order.
func TestWebPrintsTheAddressWithItsToken(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, self(t), "web", "--no-open", "--cwd", t.TempDir())
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), isolatedXDG(t)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no address: %v; stderr:\n%s", err, stderr.String())
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || len(u.Query().Get("token")) < 40 {
		t.Fatalf("first line %q: want http://127.0.0.1:PORT/?token=…", line)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	check := func(path string, want int) {
		t.Helper()
		resp, err := client.Get(u.Scheme + "://" + u.Host + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	check("/", http.StatusUnauthorized)
	check("/?token=nope", http.StatusForbidden)
	check("/?"+u.RawQuery, http.StatusSeeOther)
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("parley web ended with %v; stderr:\n%s", err, stderr.String())
	}
}

func TestWebListenRefusesEveryAddressAndWarnsOfOthers(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "web", "--no-open", "--listen", "0.0.0.0")
	if r.code != 2 || !strings.Contains(r.stderr, "every address") {
		t.Errorf("--listen 0.0.0.0: exit %d, stderr %q", r.code, r.stderr)
	}
	r = parley(t, "", "web", "--no-open", "--listen", "127.0.0.1:80")
	if r.code != 2 || !strings.Contains(r.stderr, "--port") {
		t.Errorf("--listen with a port: exit %d, stderr %q", r.code, r.stderr)
	}
}
