package coder

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/coder/tools"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/workspace"
)

// idleAgent is an agent side that only makes calls (the contract test's client env).
type idleAgent struct{}

func (idleAgent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersion}, nil
}
func (idleAgent) NewSession(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}
func (idleAgent) Prompt(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error) {
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}
func (idleAgent) Cancel(context.Context, *acp.CancelNotification) error { return nil }

// envs are the two Env implementations over a fresh workspace: the local machine, and an
// ACP client (parley's own host) offering fs/* and terminal/*.
func envs(t *testing.T) map[string]func() (tools.Env, string) {
	workspaceDir := func() (string, *workspace.Roots) {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		roots, err := workspace.NewRoots(dir)
		if err != nil {
			t.Fatal(err)
		}
		return dir, roots
	}
	return map[string]func() (tools.Env, string){
		"local": func() (tools.Env, string) {
			dir, roots := workspaceDir()
			return tools.LocalEnv(roots), dir
		},
		"client": func() (tools.Env, string) {
			dir, roots := workspaceDir()
			client := newHostClient(hostClientOptions{Policy: &permission.Policy{}})
			client.AddSession("s1", roots)
			x, y := net.Pipe()
			cc := acp.NewClientConn(x, func(*acp.ClientConn) acp.Client { return client }, nil)
			ac := acp.NewAgentConn(y, func(*acp.AgentConn) acp.Agent { return idleAgent{} }, nil)
			t.Cleanup(func() { cc.Close(); ac.Close(); client.Close() })
			return newClientEnv(ac, "s1", client.Capabilities(), nil, roots), dir
		},
	}
}

// TestEnvContract runs the Env contract (tools.Env's comment) against both implementations.
func TestEnvContract(t *testing.T) {
	for name, newEnv := range envs(t) {
		t.Run(name, func(t *testing.T) {
			env, dir := newEnv()
			ctx := t.Context()
			if _, err := env.ReadFile(ctx, dir+"/missing.txt"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("ReadFile of a missing file: %v, want fs.ErrNotExist", err)
			}
			if err := env.WriteFile(ctx, dir+"/new/deep/f.txt", "héllo\n"); err != nil {
				t.Fatalf("WriteFile creating its parents: %v", err)
			}
			if got, err := env.ReadFile(ctx, dir+"/new/deep/f.txt"); err != nil || got != "héllo\n" {
				t.Errorf("ReadFile = %q, %v", got, err)
			}
			out, code, err := env.Run(ctx, "sh", []string{"-c", "echo hi; echo err >&2; exit 3"}, dir, time.Minute)
			if err != nil || code != 3 || out != "hi\nerr\n" {
				t.Errorf("Run = %q, %d, %v; want the output, exit code 3 and no error", out, code, err)
			}
			if out, _, err := env.Run(ctx, "pwd", nil, dir+"/new", time.Minute); err != nil || strings.TrimSpace(out) != dir+"/new" {
				t.Errorf("Run in a cwd: %q, %v", out, err)
			}
			out, _, err = env.Run(ctx, "sh", []string{"-c", "echo started; exec sleep 30"}, dir, 300*time.Millisecond)
			if !errors.Is(err, tools.ErrTimeout) || !strings.Contains(out, "started") {
				t.Errorf("Run past its timeout = %q, %v; want the output so far and ErrTimeout", out, err)
			}
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if _, _, err := env.Run(cancelled, "true", nil, dir, time.Minute); err == nil {
				t.Error("Run with a cancelled context succeeded")
			}
			if _, _, err := env.Run(ctx, "true", nil, filepath.Dir(dir), time.Minute); err == nil {
				t.Error("Run outside the workspace succeeded")
			}
			os.Remove(dir + "/new/deep/f.txt")
		})
	}
}
