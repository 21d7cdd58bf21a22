// Package conformance is the black-box conformance suite of `parley vscodelm`: a fake VS
// Code client drives the real binary over stdio, with parley's built-in Eliza as the
// agent, through the scenarios of the protocol reference (§10 of vscodelm-protocol.md).
//
// This file is the fake client. It checks every frame it reads against the rules that
// hold in every scenario (JSON-RPC 2.0 only on stdout, requestId echoed with its JSON
// type, no part after a response, lm/responseComplete right before a {} result and never
// before an error, every request answered exactly once) and reports violations when the
// test ends, with the whole transcript.
package conformance

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/testbin"
	"github.com/parley-acp/parley/internal/vscodelm"
)

var hangGuard = flag.Duration("conformance.timeout", 20*time.Second,
	"how long the fake client waits for any awaited frame, and for parley to exit, before failing")

const chatMethod = "lm/provideLanguageModelChatResponse"

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

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// frame is any line parley writes. Pointers and raw values tell absent from null.
type frame struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

// call is one request the client sent, and what parley said about it.
type call struct {
	id       string // the id's JSON text
	method   string
	parts    []vscodelm.ContentPart
	complete bool // lm/responseComplete seen
	answers  int
	result   json.RawMessage
	err      *rpcError
}

// client is a fake VS Code extension talking to one `parley vscodelm` process.
type client struct {
	t    *testing.T
	cmd  *exec.Cmd
	home string // HOME of the process; the XDG directories are under it

	stdin          *os.File // write end
	stdout, stderr *os.File // read ends
	readers        sync.WaitGroup
	exited         chan struct{}
	exitErr        error // set before exited is closed
	closeOnce      sync.Once

	writeMu sync.Mutex // one line at a time on stdin

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every change below
	nextID     int64
	transcript []string
	calls      map[string]*call
	nullID     []*rpcError // error responses with "id": null, not yet awaited
	violations []string
	logLines   []string // parley's stderr lines (its log)
	eof        bool
}

// start runs `parley vscodelm` in a temporary workspace with an isolated home and returns
// its client; args replace the arguments ("vscodelm"). The test's cleanup closes stdin,
// waits for the exit and reports.
func start(t *testing.T, args ...string) *client {
	t.Helper()
	requireServer(t)
	home := t.TempDir()
	c := &client{
		t:       t,
		home:    home,
		exited:  make(chan struct{}),
		changed: make(chan struct{}),
		calls:   map[string]*call{},
	}
	if len(args) == 0 {
		args = []string{"vscodelm"}
	}
	c.cmd = exec.Command(parleyBin, args...)
	c.cmd.Dir = t.TempDir()
	c.cmd.Env = testbin.IsolatedEnv(home)
	inR, inW, err1 := os.Pipe()
	outR, outW, err2 := os.Pipe()
	errR, errW, err3 := os.Pipe()
	if err := firstError(err1, err2, err3); err != nil {
		t.Fatalf("pipes: %v", err)
	}
	c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr = inR, outW, errW
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("starting parley vscodelm: %v", err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	c.stdin, c.stdout, c.stderr = inW, outR, errR
	c.readers.Add(2)
	go c.readStdout()
	go c.readStderr()
	go func() {
		c.exitErr = c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(c.finish)
	return c
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// notify wakes every waiter. c.mu is held.
func (c *client) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// violate records a protocol violation. c.mu is held.
func (c *client) violate(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.violations = append(c.violations, msg)
	c.transcript = append(c.transcript, "!! VIOLATION: "+msg)
}

func (c *client) readStdout() {
	defer c.readers.Done()
	r := bufio.NewReaderSize(c.stdout, 1<<16) // no line limit: ReadBytes grows as needed
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			c.handle(strings.TrimRight(string(line), "\r\n"))
		}
		if err != nil {
			c.mu.Lock()
			c.eof = true
			c.notify()
			c.mu.Unlock()
			return
		}
	}
}

func (c *client) readStderr() {
	defer c.readers.Done()
	s := bufio.NewScanner(c.stderr)
	s.Buffer(nil, 1<<24)
	for s.Scan() {
		c.mu.Lock()
		c.transcript = append(c.transcript, "   stderr: "+s.Text())
		c.logLines = append(c.logLines, s.Text())
		c.notify()
		c.mu.Unlock()
	}
}

// handle checks one stdout line and files it under its request.
func (c *client) handle(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.notify()
	c.transcript = append(c.transcript, "<- "+line)
	var f frame
	if err := json.Unmarshal([]byte(line), &f); err != nil || !strings.HasPrefix(strings.TrimSpace(line), "{") {
		c.violate("stdout line is not a JSON-RPC object (stdout is for protocol messages only)")
		return
	}
	if f.JSONRPC == nil || *f.JSONRPC != "2.0" {
		c.violate(`frame without "jsonrpc":"2.0"`)
	}
	switch {
	case f.Method != "" && len(f.ID) > 0:
		c.violate("parley sent a request (%s); the protocol has none in that direction", f.Method)
	case f.Method != "":
		c.notification(f)
	case len(f.ID) > 0:
		c.response(f)
	default:
		c.violate("frame is neither a notification nor a response")
	}
}

func (c *client) notification(f frame) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Part      json.RawMessage `json:"part"`
	}
	if f.Method == "lm/responsePart" || f.Method == "lm/responseComplete" {
		if err := json.Unmarshal(f.Params, &p); err != nil {
			c.violate("%s params: %v", f.Method, err)
			return
		}
	}
	switch f.Method {
	case "lm/responsePart":
		call := c.open(f.Method, p.RequestID)
		if call == nil {
			return
		}
		var part vscodelm.ContentPart
		var kind struct {
			Type string `json:"type"`
		}
		json.Unmarshal(p.Part, &kind)
		switch kind.Type {
		case "thinking", "tool_invocation": // parley's additions, for clients that ask for them
			part = vscodelm.ContentPart{Type: kind.Type, Raw: append(json.RawMessage(nil), p.Part...)}
		default:
			if err := json.Unmarshal(p.Part, &part); err != nil {
				c.violate("lm/responsePart for %s: bad part: %v", call.id, err)
				return
			}
		}
		if part.Type == vscodelm.PartToolResult {
			c.violate("lm/responsePart for %s streams a tool_result part", call.id)
		}
		if call.complete {
			c.violate("lm/responsePart for %s after its lm/responseComplete", call.id)
		}
		call.parts = append(call.parts, part)
	case "lm/responseComplete":
		call := c.open(f.Method, p.RequestID)
		if call == nil {
			return
		}
		if call.complete {
			c.violate("second lm/responseComplete for %s", call.id)
		}
		call.complete = true
	default:
		c.violate("unknown notification %q from parley", f.Method)
	}
}

// open returns the open chat request a notification names, or nil after recording why
// there is none.
func (c *client) open(method string, requestID json.RawMessage) *call {
	key := idKey(requestID)
	call := c.calls[key]
	switch {
	case call == nil:
		c.violate("%s for requestId %s, which is no request of ours (the id must be echoed with its JSON type)", method, key)
	case call.method != chatMethod:
		c.violate("%s for request %s, a %s request", method, key, call.method)
	case call.answers > 0:
		c.violate("%s for request %s after its response", method, key)
	default:
		return call
	}
	return nil
}

func (c *client) response(f frame) {
	if string(f.ID) == "null" {
		if f.Error == nil {
			c.violate("result with id null")
			return
		}
		c.nullID = append(c.nullID, f.Error)
		return
	}
	key := idKey(f.ID)
	call := c.calls[key]
	if call == nil {
		c.violate("response to id %s, which the client never sent (or sent with another JSON type)", key)
		return
	}
	call.answers++
	if call.answers > 1 {
		c.violate("request %s (%s) answered %d times", key, call.method, call.answers)
		return
	}
	if (len(f.Result) > 0) == (f.Error != nil) {
		c.violate("response to %s must carry exactly one of result and error", key)
		return
	}
	if f.Error != nil {
		call.err = f.Error
		if call.complete {
			c.violate("lm/responseComplete sent for %s, which was answered with an error", key)
		}
		return
	}
	call.result = f.Result
	if call.method == chatMethod {
		if !call.complete {
			c.violate("result for %s without lm/responseComplete right before it", key)
		}
		if idKey(f.Result) != "{}" {
			c.violate("chat result for %s is %s, want {}", key, f.Result)
		}
	}
}

func idKey(raw json.RawMessage) string {
	if b, err := json.Compact(raw); err == nil {
		return string(b)
	}
	return string(raw)
}

// write sends one line. Only the test goroutine writes.
func (c *client) write(line string) {
	c.t.Helper()
	c.mu.Lock()
	c.transcript = append(c.transcript, "-> "+line)
	c.mu.Unlock()
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.stdin.Write([]byte(line + "\n")); err != nil {
		c.t.Fatalf("writing to parley's stdin: %v", err)
	}
}

// raw sends line as it is (plus the newline): malformed input, notifications.
func (c *client) raw(line string) { c.t.Helper(); c.write(line) }

// newID reserves the next request id; the client counts from 1, like Symposium's.
func (c *client) newID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return c.nextID
}

// request sends a request and returns its id.
func (c *client) request(method string, params any) int64 {
	c.t.Helper()
	id, line := c.prepare(method, params)
	c.write(line)
	return id
}

// prepare encodes a request and records it as sent, for the caller to write (several
// lines may go out in one write).
func (c *client) prepare(method string, params any) (int64, string) {
	c.t.Helper()
	id := c.newID()
	line, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params})
	if err != nil {
		c.t.Fatalf("encoding %s: %v", method, err)
	}
	key := strconv.FormatInt(id, 10)
	c.mu.Lock()
	c.calls[key] = &call{id: key, method: method}
	c.mu.Unlock()
	return id, string(line)
}

// nextRequestID is the id the next request will get.
func (c *client) nextRequestID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nextID + 1
}

// requestRaw sends line, a request the caller wrote by hand with the numeric id id.
func (c *client) requestRaw(id int64, method, line string) {
	c.t.Helper()
	key := strconv.FormatInt(id, 10)
	c.mu.Lock()
	c.calls[key] = &call{id: key, method: method}
	c.mu.Unlock()
	c.write(line)
}

// cancel sends lm/cancel for id.
func (c *client) cancel(id int64) {
	c.t.Helper()
	c.raw(cancelLine(id))
}

func cancelLine(id int64) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"lm/cancel","params":{"requestId":%d}}`, id)
}

// waitFor blocks until done (called with c.mu held) holds. It fails the test when the
// hang guard expires or parley closes stdout first.
func (c *client) waitFor(what string, done func() bool) {
	c.t.Helper()
	timer := time.NewTimer(*hangGuard)
	defer timer.Stop()
	for {
		c.mu.Lock()
		if done() {
			c.mu.Unlock()
			return
		}
		eof, changed := c.eof, c.changed
		c.mu.Unlock()
		if eof {
			c.t.Fatalf("parley closed stdout while the client waited for %s", what)
		}
		select {
		case <-changed:
		case <-timer.C:
			c.t.Fatalf("hang guard: no %s within %v", what, *hangGuard)
		}
	}
}

// await waits for the response to id and returns the parts streamed for it and its
// result or error.
func (c *client) await(id int64) (parts []vscodelm.ContentPart, result json.RawMessage, err *rpcError) {
	c.t.Helper()
	key := strconv.FormatInt(id, 10)
	var cl *call
	c.waitFor("response to request "+key, func() bool {
		cl = c.calls[key]
		return cl != nil && cl.answers > 0
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(cl.parts), cl.result, cl.err
}

// ok awaits a request that must succeed and returns its parts.
func (c *client) ok(id int64) []vscodelm.ContentPart {
	c.t.Helper()
	parts, _, err := c.await(id)
	if err != nil {
		c.t.Fatalf("request %d: %v", id, err)
	}
	return parts
}

// fails awaits a request that must fail with code and returns the error.
func (c *client) fails(id int64, code int) *rpcError {
	c.t.Helper()
	_, result, err := c.await(id)
	if err == nil {
		c.t.Fatalf("request %d: got result %s, want error %d", id, result, code)
	}
	if err.Code != code {
		c.t.Fatalf("request %d: got %v, want code %d", id, err, code)
	}
	return err
}

// waitParts waits until request id has had at least n parts streamed; the request must
// still be open then.
func (c *client) waitParts(id int64, n int) {
	c.t.Helper()
	key := strconv.FormatInt(id, 10)
	var cl *call
	c.waitFor(fmt.Sprintf("%d parts for request %s", n, key), func() bool {
		cl = c.calls[key]
		return cl != nil && (len(cl.parts) >= n || cl.answers > 0)
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(cl.parts) < n {
		c.t.Fatalf("request %s was answered after %d parts, before the %d the test needs", key, len(cl.parts), n)
	}
}

// awaitStderr waits for a line of parley's stderr (its log) that contains every one of
// the substrings, and returns it.
func (c *client) awaitStderr(substrings ...string) string {
	c.t.Helper()
	var found string
	c.waitFor(fmt.Sprintf("a log line with %q", substrings), func() bool {
		for _, line := range c.logLines {
			if containsAll(line, substrings) {
				found = line
				return true
			}
		}
		return false
	})
	return found
}

// countStderr counts the lines of parley's stderr read so far that contain every one of
// the substrings.
func (c *client) countStderr(substrings ...string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, line := range c.logLines {
		if containsAll(line, substrings) {
			n++
		}
	}
	return n
}

func containsAll(s string, substrings []string) bool {
	for _, sub := range substrings {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// awaitNullID waits for an error response with "id": null (the answer to a line parley
// could not read as a request) and returns it.
func (c *client) awaitNullID() *rpcError {
	c.t.Helper()
	c.waitFor("error response with id null", func() bool { return len(c.nullID) > 0 })
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.nullID[0]
	c.nullID = c.nullID[1:]
	return e
}

// close closes parley's stdin and waits, under the hang guard, for the process to exit and
// its output to end. It returns the exit status (-1 when killed by the guard).
func (c *client) close() int {
	c.closeOnce.Do(func() {
		c.stdin.Close()
		guard := time.NewTimer(*hangGuard)
		defer guard.Stop()
		select {
		case <-c.exited:
		case <-guard.C:
			c.t.Errorf("hang guard: parley vscodelm did not exit within %v after stdin was closed; killing it", *hangGuard)
			c.cmd.Process.Kill()
			<-c.exited
		}
		drained := make(chan struct{})
		go func() { c.readers.Wait(); close(drained) }()
		select {
		case <-drained:
		case <-time.After(*hangGuard):
			c.t.Errorf("stdout or stderr still open %v after parley exited: a child process holds them", *hangGuard)
			c.stdout.Close() // unblocks the readers
			c.stderr.Close()
			<-drained
		}
	})
	return c.cmd.ProcessState.ExitCode()
}

// finish is the test's cleanup: the process must exit 0, every request must have been
// answered, no frame may have broken a rule, and no agent process may outlive parley.
func (c *client) finish() {
	t := c.t
	if code := c.close(); code != 0 {
		t.Errorf("parley vscodelm exited with %v after stdin was closed; want status 0", c.exitErr)
	}
	c.mu.Lock()
	for _, cl := range sortedCalls(c.calls) {
		if cl.answers == 0 {
			c.violate("request %s (%s) was never answered", cl.id, cl.method)
		}
	}
	for _, e := range c.nullID {
		c.violate("unexpected error response with id null: %v", e)
	}
	violations := slices.Clone(c.violations)
	c.mu.Unlock()
	for _, v := range violations {
		t.Errorf("protocol violation: %s", v)
	}
	if left := waitNoAgents(); len(left) > 0 {
		t.Errorf("processes of the parley binary outlive parley vscodelm: %v", left)
		for _, pid := range left {
			killProcess(pid) // started by this test's parley
		}
	}
	if t.Failed() {
		c.mu.Lock()
		t.Logf("transcript (-> client to parley, <- parley to client):\n%s", strings.Join(abbreviateLines(c.transcript), "\n"))
		c.mu.Unlock()
	}
	c.stdout.Close()
	c.stderr.Close()
}

func sortedCalls(m map[string]*call) []*call {
	out := make([]*call, 0, len(m))
	for _, cl := range m {
		out = append(out, cl)
	}
	slices.SortFunc(out, func(a, b *call) int { return strings.Compare(fmt.Sprintf("%20s", a.id), fmt.Sprintf("%20s", b.id)) })
	return out
}

func abbreviateLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) > 2000 {
			l = l[:2000] + fmt.Sprintf("... (%d bytes)", len(l))
		}
		out[i] = l
	}
	return out
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

func user(text string) vscodelm.Message {
	return vscodelm.Message{Role: vscodelm.RoleUser, Content: []vscodelm.ContentPart{vscodelm.TextPart(text)}}
}

// toolResult is a tool_result part whose result is VS Code's content array [{"value": v}].
func toolResult(callID, value string) vscodelm.ContentPart {
	result, err := json.Marshal([]map[string]string{{"value": value}})
	if err != nil {
		panic(err)
	}
	return vscodelm.ContentPart{Type: vscodelm.PartToolResult, ToolCallID: callID, Result: result}
}

// chat sends lm/provideLanguageModelChatResponse. options is {} without tools, as the
// Symposium client sends it.
func (c *client) chat(agent json.RawMessage, messages []vscodelm.Message, tools []vscodelm.ToolDefinition) int64 {
	c.t.Helper()
	return c.request(chatMethod, vscodelm.ChatRequestParams{
		ModelID:  "eliza",
		Messages: messages,
		Agent:    agent,
		Options:  &vscodelm.RequestOptions{Tools: tools, ToolMode: toolMode(tools)},
	})
}

func toolMode(tools []vscodelm.ToolDefinition) string {
	if len(tools) == 0 {
		return ""
	}
	return "auto"
}

// conversation is one VS Code chat: it resends the whole history with every request.
type conversation struct {
	c       *client
	agent   json.RawMessage
	tools   []vscodelm.ToolDefinition
	history []vscodelm.Message
}

func (c *client) conversation(agent json.RawMessage, tools ...vscodelm.ToolDefinition) *conversation {
	return &conversation{c: c, agent: agent, tools: tools}
}

// send appends msgs to the history and sends it all.
func (cv *conversation) send(msgs ...vscodelm.Message) int64 {
	cv.c.t.Helper()
	id, line := cv.prepare(msgs...)
	cv.c.write(line)
	return id
}

// prepare is send without the write: the caller writes the line.
func (cv *conversation) prepare(msgs ...vscodelm.Message) (int64, string) {
	cv.c.t.Helper()
	cv.history = append(cv.history, msgs...)
	return cv.c.prepare(chatMethod, vscodelm.ChatRequestParams{
		ModelID:  "eliza",
		Messages: slices.Clone(cv.history),
		Agent:    cv.agent,
		Options:  &vscodelm.RequestOptions{Tools: cv.tools, ToolMode: toolMode(cv.tools)},
	})
}

// record appends the assistant's reply as VS Code echoes it: the parts it received.
func (cv *conversation) record(parts []vscodelm.ContentPart) {
	if len(parts) > 0 {
		cv.history = append(cv.history, vscodelm.Message{Role: vscodelm.RoleAssistant, Content: slices.Clone(parts)})
	}
}

// dropLast removes the last n messages, as an edit or a regeneration in VS Code does.
func (cv *conversation) dropLast(n int) {
	cv.history = slices.Clone(cv.history[:len(cv.history)-n])
}

// turn sends a user message, awaits a successful reply, records it and returns its text.
func (cv *conversation) turn(text string) string {
	cv.c.t.Helper()
	parts := cv.c.ok(cv.send(user(text)))
	cv.record(parts)
	return textOf(parts)
}

// textOf concatenates the text parts.
func textOf(parts []vscodelm.ContentPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == vscodelm.PartText {
			b.WriteString(p.Value)
		}
	}
	return b.String()
}

// toolCalls returns the tool_call parts.
func toolCalls(parts []vscodelm.ContentPart) []vscodelm.ContentPart {
	var calls []vscodelm.ContentPart
	for _, p := range parts {
		if p.Type == vscodelm.PartToolCall {
			calls = append(calls, p)
		}
	}
	return calls
}

// jsonEqual reports whether two JSON texts encode the same value.
func jsonEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// TestClientChecksFrames checks the fake client itself: every rule it enforces on parley's
// frames catches a frame that breaks it. It needs no server.
func TestClientChecksFrames(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"not JSON", []string{`hello`}, "not a JSON-RPC object"},
		{"no jsonrpc", []string{`{"method":"lm/responseComplete","params":{"requestId":1}}`}, `"jsonrpc":"2.0"`},
		{"requestId as string", []string{`{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":"1","part":{"type":"text","value":"x"}}}`}, "no request of ours"},
		{"result without complete", []string{`{"jsonrpc":"2.0","id":1,"result":{}}`}, "without lm/responseComplete"},
		{"result not {}", []string{`{"jsonrpc":"2.0","method":"lm/responseComplete","params":{"requestId":1}}`, `{"jsonrpc":"2.0","id":1,"result":null}`}, "want {}"},
		{"complete before error", []string{`{"jsonrpc":"2.0","method":"lm/responseComplete","params":{"requestId":1}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}`}, "answered with an error"},
		{"part after complete", []string{`{"jsonrpc":"2.0","method":"lm/responseComplete","params":{"requestId":1}}`, `{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":1,"part":{"type":"text","value":"x"}}}`}, "after its lm/responseComplete"},
		{"part after response", []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"request cancelled"}}`, `{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":1,"part":{"type":"text","value":"x"}}}`}, "after its response"},
		{"answered twice", []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"request cancelled"}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"request cancelled"}}`}, "answered 2 times"},
		{"unknown id", []string{`{"jsonrpc":"2.0","id":7,"result":3}`}, "never sent"},
		{"tool_result streamed", []string{`{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":1,"part":{"type":"tool_result","toolCallId":"c","result":[]}}}`}, "tool_result"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &client{t: t, changed: make(chan struct{}), calls: map[string]*call{"1": {id: "1", method: chatMethod}}}
			for _, line := range tt.lines {
				c.handle(line)
			}
			if !slices.ContainsFunc(c.violations, func(v string) bool { return strings.Contains(v, tt.want) }) {
				t.Errorf("violations %q, want one mentioning %q", c.violations, tt.want)
			}
		})
	}
	t.Run("a correct exchange", func(t *testing.T) {
		c := &client{t: t, changed: make(chan struct{}), calls: map[string]*call{"1": {id: "1", method: chatMethod}}}
		for _, line := range []string{
			`{"jsonrpc":"2.0","method":"lm/responsePart","params":{"requestId":1,"part":{"type":"text","value":"x"}}}`,
			`{"jsonrpc":"2.0","method":"lm/responseComplete","params":{"requestId":1}}`,
			`{"jsonrpc":"2.0","id":1,"result":{}}`,
		} {
			c.handle(line)
		}
		if len(c.violations) > 0 {
			t.Errorf("violations %q, want none", c.violations)
		}
	})
}

// killProcess kills pid, which this test's parley started.
func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
