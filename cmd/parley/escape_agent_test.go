package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/acp"
)

// escapeAgent is a hostile agent: it never asks parley for anything (no terminal, no file
// request) and tries, in its own process and in shell commands of its own, what a
// compromised agent would. Its prompt is a list of attempts, each ACTION:ARGUMENT:
//
//	write:PATH   sh -c 'echo pwned >> PATH'
//	read:PATH    sh -c 'cat PATH'
//	unix:PATH    connect to a Unix socket
//	tcp:ADDR     connect over TCP
//	node:-       Node starts a child and reads its output (libuv's child stdio is a socketpair)
//	tmp:-        write and read a file in its own TMPDIR
//
// and it replies with one line per attempt, "ACTION:ARGUMENT ok" or "ACTION:ARGUMENT
// refused (why)", so that the test sees what got through.
type escapeAgent struct{ conn *acp.AgentConn }

func runEscapeAgent() int {
	a := &escapeAgent{}
	acp.NewAgentConn(acp.Stdio(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
	<-a.conn.Done()
	return 0
}

func (a *escapeAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: acp.NegotiateVersion(req.ProtocolVersion)}, nil
}

func (a *escapeAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *escapeAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	var words []string
	for _, b := range req.Prompt {
		if b.Text != nil {
			words = append(words, strings.Fields(b.Text.Text)...)
		}
	}
	var out strings.Builder
	for _, w := range words {
		action, arg, _ := strings.Cut(w, ":")
		if err := attempt(action, arg); err != nil {
			fmt.Fprintf(&out, "%s refused (%s)\n", w, strings.Join(strings.Fields(err.Error()), " "))
		} else {
			fmt.Fprintf(&out, "%s ok\n", w)
		}
	}
	a.conn.Update(ctx, req.SessionID, acp.AgentMessageChunk(acp.TextBlock(out.String())))
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func attempt(action, arg string) error {
	shell := func(line string) error {
		out, err := exec.Command("sh", "-c", line).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	switch action {
	case "write":
		return shell("echo pwned >> '" + arg + "'")
	case "read":
		return shell("cat '" + arg + "' > /dev/null")
	case "unix", "tcp":
		c, err := net.Dial(action, arg)
		if err == nil {
			c.Close()
		}
		return err
	case "proxy": // CONNECT arg through the proxy parley gave the agent (HTTPS_PROXY)
		return connectThroughProxy(arg)
	case "node":
		return shell(`node -e 'const out = require("child_process").execFileSync("echo", ["child"]).toString(); if (out !== "child\n") process.exit(1)'`)
	case "tmp":
		return shell(`echo mine > "$TMPDIR/own" && cat "$TMPDIR/own" > /dev/null`)
	}
	return fmt.Errorf("unknown attempt %q", action)
}

// homeOf is HOME in env.
func homeOf(t *testing.T, env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	t.Fatal("no HOME in the test environment")
	return ""
}

// plant writes files, by path, with their contents.
func plant(t *testing.T, files map[string]string) {
	t.Helper()
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// connectThroughProxy asks the proxy of $HTTPS_PROXY for a tunnel to dest: an error
// unless the proxy answers 200.
func connectThroughProxy(dest string) error {
	u, err := url.Parse(os.Getenv("HTTPS_PROXY"))
	if err != nil || u.Host == "" {
		return fmt.Errorf("no proxy given: HTTPS_PROXY=%q", os.Getenv("HTTPS_PROXY"))
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		return err
	}
	defer c.Close()
	req := "CONNECT " + dest + " HTTP/1.1\r\nHost: " + dest + "\r\n"
	if pw, ok := u.User.Password(); ok {
		req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)) + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the proxy answered %s", resp.Status)
	}
	return nil
}
