// Package vscodetest is a fake VS Code client for tests of `parley vscodelm`: it starts
// the real binary, speaks the extension's side of the protocol over its stdio, and checks
// every frame it reads against the rules that hold in every exchange (JSON-RPC 2.0 only
// on stdout, requestId echoed with its JSON type, no part or notification after a
// response, lm/responseComplete right before a {} result and never before an error,
// every request answered exactly once). Violations are reported when the test ends, with
// the whole transcript. The conformance suite, the benchmarks and the real agents' suite
// all drive parley through it.
package vscodetest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/testbin"
	"github.com/parley-acp/parley/internal/vscodelm"
)

// ChatMethod is the chat request's method.
const ChatMethod = "lm/provideLanguageModelChatResponse"

// DefaultHangGuard is how long a client waits for any awaited frame, and for parley to
// exit, when Options.HangGuard is not set.
const DefaultHangGuard = 20 * time.Second

// notifications are the notifications parley sends about a chat request: they name it
// with requestId and come only while it is open.
var notifications = map[string]bool{
	"lm/responsePart": true, "lm/responseComplete": true, "lm/conversation": true,
	"lm/usage": true, "lm/changes": true, "lm/elicitation": true, "lm/signInRequired": true,
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Frame is any line parley writes. Pointers and raw values tell absent from null.
type Frame struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCError       `json:"error"`
}

// Notification is a notification parley sent about a chat request, other than its parts
// and its completion.
type Notification struct {
	Method string
	Params json.RawMessage
}

// call is one request the client sent, and what parley said about it.
type call struct {
	id       string // the id's JSON text
	method   string
	sent     time.Time
	parts    []vscodelm.ContentPart
	arrivals []time.Time // of each part
	notes    []Notification
	complete bool // lm/responseComplete seen
	answers  int
	result   json.RawMessage
	err      *RPCError
}

// Options say how to start parley.
type Options struct {
	Binary string   // the parley binary
	Args   []string // its arguments; default ["vscodelm"]
	// Env is its environment; default an isolated one (testbin.IsolatedEnv) whose HOME
	// and XDG directories are under Home.
	Env  []string
	Home string // default a temporary directory
	Dir  string // its working directory; default a temporary directory
	// HangGuard bounds every wait; DefaultHangGuard when 0.
	HangGuard time.Duration
	// Quiet keeps no transcript (a benchmark's floods would fill it); a failing test then
	// shows only parley's stderr.
	Quiet bool
	// AfterExit runs in the test's cleanup once parley has exited and its frames are
	// checked, before the transcript is shown for a failed test: a suite's own checks
	// (no agent process left behind).
	AfterExit func(t testing.TB)
}

// Client is a fake VS Code extension talking to one `parley vscodelm` process.
type Client struct {
	T    testing.TB
	Cmd  *exec.Cmd
	Home string // HOME of the process; the XDG directories are under it

	opts           Options
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
	nullID     []*RPCError // error responses with "id": null, not yet awaited
	violations []string
	logLines   []string // parley's stderr lines (its log)
	eof        bool
}

// Start runs parley (`parley vscodelm` by default) and returns its client. The test's
// cleanup closes stdin, waits for the exit and reports: parley must exit 0, every request
// must have been answered and no frame may have broken a rule.
func Start(t testing.TB, opts Options) *Client {
	t.Helper()
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if len(opts.Args) == 0 {
		opts.Args = []string{"vscodelm"}
	}
	if opts.Env == nil {
		opts.Env = testbin.IsolatedEnv(opts.Home)
	}
	if opts.HangGuard <= 0 {
		opts.HangGuard = DefaultHangGuard
	}
	c := &Client{T: t, Home: opts.Home, opts: opts, exited: make(chan struct{}), changed: make(chan struct{}), calls: map[string]*call{}}
	c.Cmd = exec.Command(opts.Binary, opts.Args...)
	c.Cmd.Dir, c.Cmd.Env = opts.Dir, opts.Env
	inR, inW, err1 := os.Pipe()
	outR, outW, err2 := os.Pipe()
	errR, errW, err3 := os.Pipe()
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			t.Fatalf("pipes: %v", err)
		}
	}
	c.Cmd.Stdin, c.Cmd.Stdout, c.Cmd.Stderr = inR, outW, errW
	if err := c.Cmd.Start(); err != nil {
		t.Fatalf("starting parley: %v", err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	c.stdin, c.stdout, c.stderr = inW, outR, errR
	c.readers.Add(2)
	go c.readStdout()
	go c.readStderr()
	go func() {
		c.exitErr = c.Cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(c.finish)
	return c
}

// Exited is closed once parley has exited.
func (c *Client) Exited() <-chan struct{} { return c.exited }

// notify wakes every waiter. c.mu is held.
func (c *Client) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// note adds a line to the transcript. c.mu is held.
func (c *Client) note(line string) {
	if !c.opts.Quiet {
		c.transcript = append(c.transcript, line)
	}
}

// violate records a protocol violation. c.mu is held.
func (c *Client) violate(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.violations = append(c.violations, msg)
	c.transcript = append(c.transcript, "!! VIOLATION: "+msg)
}

func (c *Client) readStdout() {
	defer c.readers.Done()
	r := bufio.NewReaderSize(c.stdout, 1<<16) // no line limit: ReadBytes grows as needed
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			c.handle(bytes.TrimRight(line, "\r\n"), time.Now())
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

func (c *Client) readStderr() {
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
func (c *Client) handle(line []byte, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.notify()
	if !c.opts.Quiet {
		c.note("<- " + string(line))
	}
	f, ok := frameOf(line)
	if !ok {
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
		c.notification(f, at)
	case len(f.ID) > 0:
		c.response(f)
	default:
		c.violate("frame is neither a notification nor a response")
	}
}

// frameOf decodes a stdout line, which must be one JSON object. It is checked once and
// decoded with parley's own decoder (json.UnmarshalObject): in the benchmarks this client
// shares the machine with the bridge and its agent, and decoding a streamed part four times
// through encoding/json took a tenth of it. The line is ReadBytes' own copy, which the
// frame's raw members share.
func frameOf(line []byte) (f Frame, ok bool) {
	if !json.Valid(line) || !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
		return f, false
	}
	_, err := json.UnmarshalObject(line, &f)
	return f, err == nil
}

func (c *Client) notification(f Frame, at time.Time) {
	if !notifications[f.Method] {
		c.violate("unknown notification %q from parley", f.Method)
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Part      json.RawMessage `json:"part"`
	}
	if _, err := json.UnmarshalObject(f.Params, &p); err != nil || len(f.Params) == 0 || f.Params[0] != '{' {
		c.violate("%s params: not an object (%v)", f.Method, err)
		return
	}
	call := c.open(f.Method, p.RequestID)
	if call == nil {
		return
	}
	switch f.Method {
	case "lm/responsePart":
		var part vscodelm.ContentPart
		kind, _ := json.DecodeString(json.Member(p.Part, "type"))
		switch kind {
		case "thinking", "tool_invocation": // parley's additions, for clients that ask for them
			part = vscodelm.ContentPart{Type: kind, Raw: append(json.RawMessage(nil), p.Part...)}
		default:
			if err := part.UnmarshalJSON(p.Part); err != nil {
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
		call.arrivals = append(call.arrivals, at)
	case "lm/responseComplete":
		if call.complete {
			c.violate("second lm/responseComplete for %s", call.id)
		}
		call.complete = true
	default:
		if call.complete {
			c.violate("%s for %s after its lm/responseComplete", f.Method, call.id)
		}
		call.notes = append(call.notes, Notification{Method: f.Method, Params: append(json.RawMessage(nil), f.Params...)})
	}
}

// open returns the open chat request a notification names, or nil after recording why
// there is none.
func (c *Client) open(method string, requestID json.RawMessage) *call {
	key := IDKey(requestID)
	call := c.calls[key]
	switch {
	case call == nil:
		c.violate("%s for requestId %s, which is no request of ours (the id must be echoed with its JSON type)", method, key)
	case call.method != ChatMethod:
		c.violate("%s for request %s, a %s request", method, key, call.method)
	case call.answers > 0:
		c.violate("%s for request %s after its response", method, key)
	default:
		return call
	}
	return nil
}

func (c *Client) response(f Frame) {
	if string(f.ID) == "null" {
		if f.Error == nil {
			c.violate("result with id null")
			return
		}
		c.nullID = append(c.nullID, f.Error)
		return
	}
	key := IDKey(f.ID)
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
	if call.method == ChatMethod {
		if !call.complete {
			c.violate("result for %s without lm/responseComplete right before it", key)
		}
		if IDKey(f.Result) != "{}" {
			c.violate("chat result for %s is %s, want {}", key, f.Result)
		}
	}
}

// IDKey is a JSON id's compact text.
func IDKey(raw json.RawMessage) string {
	if b, err := json.Compact(raw); err == nil {
		return string(b)
	}
	return string(raw)
}

// Write sends line as it is (plus the newline): a request written by hand, malformed
// input, notifications. Several lines may go in one write.
func (c *Client) Write(line string) {
	c.T.Helper()
	c.mu.Lock()
	c.note("-> " + line)
	c.mu.Unlock()
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.stdin.Write([]byte(line + "\n")); err != nil {
		c.T.Fatalf("writing to parley's stdin: %v", err)
	}
}

// NewID reserves the next request id; the client counts from 1, like Symposium's.
func (c *Client) NewID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return c.nextID
}

// NextRequestID is the id the next request will get.
func (c *Client) NextRequestID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nextID + 1
}

// Request sends a request and returns its id.
func (c *Client) Request(method string, params any) int64 {
	c.T.Helper()
	id, line := c.Prepare(method, params)
	c.Write(line)
	return id
}

// Prepare encodes a request and records it as sent, for the caller to Write (several
// lines may go out in one write).
func (c *Client) Prepare(method string, params any) (int64, string) {
	c.T.Helper()
	id := c.NewID()
	line, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params})
	if err != nil {
		c.T.Fatalf("encoding %s: %v", method, err)
	}
	c.Expect(id, method)
	return id, string(line)
}

// Expect records a request with the numeric id id as sent, for one the caller writes by
// hand.
func (c *Client) Expect(id int64, method string) {
	key := strconv.FormatInt(id, 10)
	c.mu.Lock()
	c.calls[key] = &call{id: key, method: method, sent: time.Now()}
	c.mu.Unlock()
}

// Cancel sends lm/cancel for id.
func (c *Client) Cancel(id int64) {
	c.T.Helper()
	c.Write(CancelLine(id))
}

// CancelLine is the lm/cancel notification for id.
func CancelLine(id int64) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"lm/cancel","params":{"requestId":%d}}`, id)
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	c.T.Helper()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		c.T.Fatalf("encoding %s: %v", method, err)
	}
	c.Write(string(line))
}

// waitFor blocks until done (called with c.mu held) holds. It fails the test when the
// hang guard expires or parley closes stdout first.
func (c *Client) waitFor(what string, done func() bool) {
	c.T.Helper()
	c.WaitFor(what, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return done()
	})
}

// WaitFor blocks until done holds; done may call the client's accessors (LogLines,
// Answered, Parts). It fails the test when the hang guard expires or parley closes stdout
// first.
func (c *Client) WaitFor(what string, done func() bool) {
	c.T.Helper()
	timer := time.NewTimer(c.opts.HangGuard)
	defer timer.Stop()
	for {
		c.mu.Lock()
		eof, changed := c.eof, c.changed
		c.mu.Unlock()
		if done() {
			return
		}
		if eof {
			c.T.Fatalf("parley closed stdout while the client waited for %s", what)
		}
		select {
		case <-changed:
		case <-timer.C:
			c.T.Fatalf("hang guard: no %s within %v", what, c.opts.HangGuard)
		}
	}
}

// LogLines are parley's stderr lines (its log) read so far.
func (c *Client) LogLines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.logLines)
}

// Answered reports whether request id has had its response.
func (c *Client) Answered(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl := c.calls[strconv.FormatInt(id, 10)]
	return cl != nil && cl.answers > 0
}

// Parts returns the parts streamed for request id so far.
func (c *Client) Parts(id int64) []vscodelm.ContentPart {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.calls[strconv.FormatInt(id, 10)]; cl != nil {
		return slices.Clone(cl.parts)
	}
	return nil
}

// Notifications returns the notifications parley sent about request id so far (lm/usage,
// lm/changes…), other than its parts and its completion.
func (c *Client) Notifications(id int64) []Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.calls[strconv.FormatInt(id, 10)]; cl != nil {
		return slices.Clone(cl.notes)
	}
	return nil
}

// Timing returns when request id was sent and when each of its parts arrived.
func (c *Client) Timing(id int64) (sent time.Time, arrivals []time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.calls[strconv.FormatInt(id, 10)]; cl != nil {
		return cl.sent, slices.Clone(cl.arrivals)
	}
	return time.Time{}, nil
}

// Await waits for the response to id and returns the parts streamed for it and its
// result or error.
func (c *Client) Await(id int64) (parts []vscodelm.ContentPart, result json.RawMessage, err *RPCError) {
	c.T.Helper()
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

// OK awaits a request that must succeed and returns its parts.
func (c *Client) OK(id int64) []vscodelm.ContentPart {
	c.T.Helper()
	parts, _, err := c.Await(id)
	if err != nil {
		c.T.Fatalf("request %d: %v", id, err)
	}
	return parts
}

// Result awaits a request that must succeed and decodes its result into v.
func (c *Client) Result(id int64, v any) {
	c.T.Helper()
	_, result, err := c.Await(id)
	if err != nil {
		c.T.Fatalf("request %d: %v", id, err)
	}
	if err := json.Unmarshal(result, v); err != nil {
		c.T.Fatalf("request %d: result %s: %v", id, result, err)
	}
}

// Fails awaits a request that must fail with code and returns the error.
func (c *Client) Fails(id int64, code int) *RPCError {
	c.T.Helper()
	_, result, err := c.Await(id)
	if err == nil {
		c.T.Fatalf("request %d: got result %s, want error %d", id, result, code)
	}
	if err.Code != code {
		c.T.Fatalf("request %d: got %v, want code %d", id, err, code)
	}
	return err
}

// WaitParts waits until request id has had at least n parts streamed; the request must
// still be open then.
func (c *Client) WaitParts(id int64, n int) {
	c.T.Helper()
	key := strconv.FormatInt(id, 10)
	var cl *call
	c.waitFor(fmt.Sprintf("%d parts for request %s", n, key), func() bool {
		cl = c.calls[key]
		return cl != nil && (len(cl.parts) >= n || cl.answers > 0)
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(cl.parts) < n {
		c.T.Fatalf("request %s was answered after %d parts, before the %d the test needs", key, len(cl.parts), n)
	}
}

// AwaitStderr waits for a line of parley's stderr (its log) that contains every one of
// the substrings, and returns it.
func (c *Client) AwaitStderr(substrings ...string) string {
	c.T.Helper()
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

// CountStderr counts the lines of parley's stderr read so far that contain every one of
// the substrings.
func (c *Client) CountStderr(substrings ...string) int {
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

// AwaitNullID waits for an error response with "id": null (the answer to a line parley
// could not read as a request) and returns it.
func (c *Client) AwaitNullID() *RPCError {
	c.T.Helper()
	c.waitFor("error response with id null", func() bool { return len(c.nullID) > 0 })
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.nullID[0]
	c.nullID = c.nullID[1:]
	return e
}

// Close closes parley's stdin and waits, under the hang guard, for the process to exit
// and its output to end. It returns the exit status (-1 when killed by the guard).
func (c *Client) Close() int {
	c.closeOnce.Do(func() {
		c.stdin.Close()
		guard := time.NewTimer(c.opts.HangGuard)
		defer guard.Stop()
		select {
		case <-c.exited:
		case <-guard.C:
			c.T.Errorf("hang guard: parley vscodelm did not exit within %v after stdin was closed; killing it", c.opts.HangGuard)
			c.Cmd.Process.Kill()
			<-c.exited
		}
		drained := make(chan struct{})
		go func() { c.readers.Wait(); close(drained) }()
		select {
		case <-drained:
		case <-time.After(c.opts.HangGuard):
			c.T.Errorf("stdout or stderr still open %v after parley exited: a child process holds them", c.opts.HangGuard)
			c.stdout.Close() // unblocks the readers
			c.stderr.Close()
			<-drained
		}
	})
	return c.Cmd.ProcessState.ExitCode()
}

// finish is the test's cleanup: the process must exit 0, every request must have been
// answered, and no frame may have broken a rule.
func (c *Client) finish() {
	t := c.T
	if code := c.Close(); code != 0 {
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
	if c.opts.AfterExit != nil {
		c.opts.AfterExit(t)
	}
	if t.Failed() {
		c.mu.Lock()
		lines := c.transcript
		if c.opts.Quiet {
			lines = c.logLines
		}
		t.Logf("transcript (-> client to parley, <- parley to client):\n%s", strings.Join(AbbreviateLines(lines), "\n"))
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

// AbbreviateLines shortens very long lines, for a log.
func AbbreviateLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) > 2000 {
			l = l[:2000] + fmt.Sprintf("... (%d bytes)", len(l))
		}
		out[i] = l
	}
	return out
}
