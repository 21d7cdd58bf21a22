package main

// Issue 28: parley web behind a real reverse proxy, Debian's nginx, that terminates TLS
// and passes the page and its WebSocket on under a path prefix, with the configuration
// docs/deployment.md gives (testdata/nginx-parley.conf, the same text).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestWebBehindNginx: nginx on 127.0.0.1 with a self-signed certificate proxies
// https://127.0.0.1:PORT/parley/ to parley web. Through it: the page signs in with a
// named token (its cookie for /parley/), its script loads, /acp opens with the token and
// an Eliza prompt runs to its end; then parley web tokens revoke closes that open
// connection, saying why, and a new one is refused.
//
// CI installs nginx and sets PARLEY_NGINX=1, so that there it never skips.
func TestWebBehindNginx(t *testing.T) {
	t.Parallel()
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx, err = exec.LookPath("/usr/sbin/nginx") // not on a user's $PATH in Debian
	}
	if err != nil {
		if os.Getenv("PARLEY_NGINX") == "1" {
			t.Fatal("PARLEY_NGINX=1 but no nginx on $PATH: apt-get install nginx-light")
		}
		t.Skip("no nginx (apt-get install nginx-light; CI sets PARLEY_NGINX=1)")
	}
	dir := t.TempDir()
	cert, key, client := selfSigned(t, dir)

	// nginx inherits its listening socket (nginx's own $NGINX, as for a binary upgrade):
	// the port is the test's from the start, and a connection made before nginx is ready
	// waits in the socket's queue.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	lnFile, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer lnFile.Close()
	public := "https://" + ln.Addr().String() + "/parley/"

	home := isolatedXDG(t)
	named := strings.TrimSpace(parleyIn(t, dir, home, "", "web", "tokens", "add", "tester").stdout)
	if len(named) < 40 {
		t.Fatalf("tokens add printed %q", named)
	}

	// parley web, whose own port it says on stderr when it has a --public-url.
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second) // a hang guard
	defer cancel()
	workspace := t.TempDir()
	web := exec.CommandContext(ctx, self(t), "web", "--no-open", "--log", "info", "--agent", "eliza", "--cwd", workspace, "--public-url", public)
	web.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), home...)
	stdout, _ := web.StdoutPipe()
	stderr, _ := web.StderrPipe()
	if err := web.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	var readers sync.WaitGroup
	listening := make(chan string, 1)
	readers.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if at, ok := strings.CutPrefix(sc.Text(), "parley web: listening on "); ok {
				listening <- strings.Fields(at)[0]
			}
		}
		close(listening)
	})
	readers.Go(func() { io.Copy(io.Discard, stdout) })
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			web.Process.Signal(os.Interrupt)
			readers.Wait()
			web.Wait()
		}
	}
	defer stop()
	upstream, ok := <-listening
	if !ok {
		stop()
		t.Fatalf("parley web did not say where it listens:\n%s", log.String())
	}

	conf, err := os.ReadFile(filepath.Join("testdata", "nginx-parley.conf"))
	if err != nil {
		t.Fatal(err)
	}
	site := strings.NewReplacer(
		"listen 443 ssl;", "listen "+ln.Addr().String()+" ssl;",
		"/etc/ssl/certs/dev.example.pem", cert,
		"/etc/ssl/private/dev.example.key", key,
		"http://127.0.0.1:8123/", strings.TrimSuffix(upstream, "/")+"/",
	).Replace(string(conf))
	if site == string(conf) || strings.Contains(site, "127.0.0.1:8123") {
		t.Fatalf("the template did not take the test's addresses:\n%s", site)
	}
	// Only the test's own files, in the foreground. (nginx in one process, without its
	// master, does not take over an inherited socket.)
	main := fmt.Sprintf(`daemon off;
pid %[1]s/nginx.pid;
error_log stderr notice;
events { worker_connections 64; }
http {
    access_log %[1]s/access.log;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
%[2]s
}
`, dir, site)
	confFile := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confFile, []byte(main), 0o600); err != nil {
		t.Fatal(err)
	}
	var nginxLog strings.Builder
	proxy := exec.CommandContext(ctx, nginx, "-p", dir, "-c", confFile, "-e", "stderr")
	proxy.ExtraFiles = []*os.File{lnFile} // fd 3
	proxy.Env = append(os.Environ(), "NGINX=3;")
	proxy.Stdout, proxy.Stderr = &nginxLog, &nginxLog
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		proxy.Process.Signal(os.Interrupt)
		proxy.Wait()
		stop() // then its log is whole
		if t.Failed() {
			t.Logf("nginx:\n%s\nparley web:\n%s", nginxLog.String(), log.String())
		}
	}()
	lnFile.Close()

	// The page: signed in with the named token, its cookie for the prefix, its files.
	get := func(u string, header http.Header) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
		if err != nil {
			return nil, err
		}
		req.Header = header.Clone()
		return client.Do(req)
	}
	resp, err := get(public+"?token="+named, http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/parley/" || len(resp.Cookies()) != 1 {
		t.Fatalf("sign-in through nginx: %d to %q, cookies %v", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
	}
	c := resp.Cookies()[0]
	if c.Path != "/parley/" || !c.Secure || !c.HttpOnly {
		t.Errorf("cookie %+v: want Path=/parley/, Secure, HttpOnly", c)
	}
	cookie := http.Header{"Cookie": {c.Name + "=" + c.Value}}
	for _, path := range []string{"", "app.js", "style.css"} {
		resp, err := get(public+path, cookie)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || path == "" && !strings.Contains(string(body), `src="app.js"`) {
			t.Errorf("GET %s%s through nginx: %d, %.80q", public, path, resp.StatusCode, body)
		}
	}

	// /acp through nginx: the page's way (its cookie, its origin) and a client's (the
	// token as the subprotocol), an Eliza turn to its end on the second.
	wsURL := "wss" + strings.TrimPrefix(public, "https") + "acp"
	pageHeader := cookie.Clone()
	pageHeader.Set("Origin", strings.TrimSuffix(public, "/parley/"))
	page, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: client, HTTPHeader: pageHeader, Subprotocols: []string{"acp"}})
	if err != nil {
		t.Fatalf("the page's WebSocket through nginx: %v", err)
	}
	defer page.CloseNow()
	ws, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: client, Subprotocols: []string{"acp", "parley-token." + named}})
	if err != nil {
		t.Fatalf("a client's WebSocket through nginx: %v", err)
	}
	defer ws.CloseNow()
	acp := &framePage{t: t, ws: ws}
	acp.request(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	acp.until("initialize's answer", isResponse("1"))
	acp.request(2, "session/new", map[string]any{"cwd": workspace, "mcpServers": []any{}})
	var created struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(acp.until("session/new's answer", isResponse("2")).Result, &created)
	acp.request(3, "session/prompt", map[string]any{"sessionId": created.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "I feel happy today"}}})
	done := acp.until("the prompt's answer", isResponse("3"))
	said, _, _ := shown(acp.frames)
	if !strings.Contains(string(done.Result), `"stopReason":"end_turn"`) || said == "" {
		t.Fatalf("the turn through nginx ended %s %s, Eliza said %q", done.Result, done.Error, said)
	}

	// Revoked: both open connections end, saying why; a new one is refused.
	revokedAt := time.Now()
	if r := parleyIn(t, dir, home, "", "web", "tokens", "revoke", "tester"); r.code != 0 {
		t.Fatalf("tokens revoke: exit %d, %s", r.code, r.stderr)
	}
	for what, conn := range map[string]*websocket.Conn{"page": page, "client": ws} {
		var err error
		for err == nil {
			_, _, err = conn.Read(ctx) // what was on its way still arrives first
		}
		if code, reason := closeReason(err); code != websocket.StatusPolicyViolation || !strings.Contains(reason, "tester was revoked") {
			t.Errorf("the %s's WebSocket after the revocation: %v", what, err)
		}
	}
	t.Logf("from parley web tokens revoke started to both connections closed through nginx: %v", time.Since(revokedAt))
	if _, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: client, Subprotocols: []string{"acp", "parley-token." + named}}); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked token on /acp through nginx: %v", err)
	}
	if resp, err := get(public, cookie); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked token's session through nginx: %v %v", resp, err)
	}

	stop()
	for _, want := range []string{`connection opened" token=tester`, `revoked; its sessions and connections end" token=tester`, "connection refused", "for 127.0.0.1"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("parley web's log lacks %q:\n%s", want, log.String())
		}
	}
}

// TestDeploymentDocGivesTheTestedNginxConfig: docs/deployment.md shows the nginx
// configuration TestWebBehindNginx runs, word for word.
func TestDeploymentDocGivesTheTestedNginxConfig(t *testing.T) {
	t.Parallel()
	conf, err := os.ReadFile(filepath.Join("testdata", "nginx-parley.conf"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "deployment.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```nginx\n"+string(conf)+"```") {
		t.Error("docs/deployment.md does not show testdata/nginx-parley.conf as it is: copy the file into its nginx block")
	}
}
