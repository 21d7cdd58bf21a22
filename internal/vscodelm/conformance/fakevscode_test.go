// Package conformance is the black-box conformance suite of `parley vscodelm`: a fake VS
// Code client (internal/vscodelm/vscodetest, which checks every frame against the rules
// that hold in every exchange) drives the real binary over stdio, with parley's built-in
// Eliza and a scripted fake agent, through the scenarios of the protocol reference (the
// table of black-box scenarios in vscodelm-protocol.md) and parley's additions.
//
// This file starts parley for each test and adds the suite's own check: no agent process
// outlives parley.
package conformance

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/testbin"
	"github.com/parley-acp/parley/internal/vscodelm"
	"github.com/parley-acp/parley/internal/vscodelm/vscodetest"
)

var hangGuard = flag.Duration("conformance.timeout", 20*time.Second,
	"how long the fake client waits for any awaited frame, and for parley to exit, before failing")

var (
	testBin    string // this test binary, which also serves as the fake agent
	parleyBin  string // built by TestMain
	skipReason string // non-empty: the server cannot be tested; every test fails with it
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeAgentEnv); mode != "" {
		os.Exit(runFakeAgent(mode)) // started by parley as an agent
	}
	flag.Parse()
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "parley-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	testBin, _ = os.Executable()
	skipReason = buildParley(dir)
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "conformance: leaked goroutines:", err)
			code = 1
		}
	}
	return code
}

// buildParley builds the binary and checks that it has the vscodelm subcommand. It returns
// why the suite cannot run, or "".
func buildParley(dir string) string {
	bin, err := testbin.Build(dir)
	if err != nil {
		return "server not ready: " + err.Error()
	}
	parleyBin = bin
	help := exec.Command(bin, "vscodelm", "--help")
	help.Env = testbin.IsolatedEnv(dir)
	if msg, err := help.CombinedOutput(); err != nil {
		return fmt.Sprintf("server not ready: `parley vscodelm --help` fails (%v): %s", err, bytes.TrimSpace(msg))
	}
	return ""
}

// requireServer fails a test when the binary could not be built or does not serve
// vscodelm: the suite never passes by skipping.
func requireServer(t *testing.T) {
	t.Helper()
	testbin.NoteSources()
	if skipReason != "" {
		t.Fatal(skipReason)
	}
}

// client is the fake VS Code client of one test's parley.
type client struct{ *vscodetest.Client }

// conversation is one VS Code chat of a test.
type conversation struct{ *vscodetest.Conversation }

// The fake client's helpers, by the short names the tests use.
var (
	user            = vscodetest.User
	toolResult      = vscodetest.ToolResult
	textOf          = vscodetest.TextOf
	toolCalls       = vscodetest.ToolCalls
	jsonEqual       = vscodetest.JSONEqual
	idKey           = vscodetest.IDKey
	cancelLine      = vscodetest.CancelLine
	abbreviateLines = vscodetest.AbbreviateLines
)

const chatMethod = vscodetest.ChatMethod

type rpcError = vscodetest.RPCError

// start runs `parley vscodelm` in a temporary workspace with an isolated home and returns
// its client; args replace the arguments ("vscodelm"). The test's cleanup closes stdin,
// waits for the exit and reports, and checks that no agent process outlives parley.
func start(t *testing.T, args ...string) *client {
	t.Helper()
	requireServer(t)
	return &client{vscodetest.Start(t, vscodetest.Options{Binary: parleyBin, Args: args, HangGuard: *hangGuard, AfterExit: noAgentsLeft})}
}

// noAgentsLeft fails the test when a process of the parley binary (an agent) outlives
// parley vscodelm, and ends it.
func noAgentsLeft(t testing.TB) {
	if left := waitNoAgents(); len(left) > 0 {
		t.Errorf("processes of the parley binary outlive parley vscodelm: %v", left)
		for _, pid := range left {
			killProcess(pid) // started by this test's parley
		}
	}
}

func (c *client) conversation(agent json.RawMessage, tools ...vscodelm.ToolDefinition) *conversation {
	return &conversation{c.Client.Conversation(agent, tools...)}
}

// parleyProcesses lists the live processes running the test's parley binary (or this
// test binary as the fake agent) with the first argument arg ("" for any), and their
// parent pids. Linux only; elsewhere it
// finds none.
func parleyProcesses(arg string) map[int]int {
	found := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		ours := argv[0] == parleyBin || argv[0] == testBin && pid != os.Getpid()
		if !ours || (arg != "" && (len(argv) < 2 || argv[1] != arg)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces, so read after the last ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[0] == "Z" {
			continue // zombies are dead
		}
		ppid, _ := strconv.Atoi(fields[1])
		found[pid] = ppid
	}
	return found
}

// waitNoAgents waits, under the hang guard, until no process of the parley binary is
// left, and returns the pids of those that are. Process exit has no event to wait on, so
// this polls /proc.
func waitNoAgents() []int {
	deadline := time.Now().Add(*hangGuard)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		left := parleyProcesses("")
		if len(left) == 0 || time.Now().After(deadline) {
			pids := make([]int, 0, len(left))
			for pid := range left {
				pids = append(pids, pid)
			}
			slices.Sort(pids)
			return pids
		}
		<-tick.C
	}
}

// ---- building requests ----

func elizaTagged() json.RawMessage { return json.RawMessage(`{"eliza":{"deterministic":true}}`) }

func elizaFlat() json.RawMessage {
	return flatAgent("eliza", "Eliza", parleyBin, "eliza", "--deterministic")
}

func flatAgent(id, name, command string, args ...string) json.RawMessage {
	b, err := json.Marshal(map[string]any{"id": id, "name": name, "command": command, "args": append([]string{}, args...), "env": []any{}})
	if err != nil {
		panic(err)
	}
	return b
}

// agentShapes are Eliza in both wire shapes of params.agent.
var agentShapes = []struct {
	name  string
	agent func() json.RawMessage
}{
	{"tagged", elizaTagged},
	{"flat", elizaFlat},
}

// forEachShape runs f as a subtest with Eliza in each agent shape.
func forEachShape(t *testing.T, f func(t *testing.T, agent json.RawMessage)) {
	for _, s := range agentShapes {
		t.Run(s.name, func(t *testing.T) {
			requireServer(t)
			f(t, s.agent())
		})
	}
}

// killProcess kills pid, which this test's parley started.
func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
