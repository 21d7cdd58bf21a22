package egress

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// nodeScript asks for argv[1] (http) and argv[2] (https) with the http and https modules
// and with fetch, then for two destinations the proxy refuses, and prints each outcome.
const nodeScript = `
const http = require('http'), https = require('https');
const get = (mod, url) => new Promise(done => {
  mod.get(url, {rejectUnauthorized: false}, r => { let b = ''; r.on('data', d => b += d); r.on('end', () => done(r.statusCode + ' ' + b)); })
    .on('error', e => done('error ' + e.message));
});
const fetched = url => fetch(url).then(async r => r.status + ' ' + await r.text(), e => 'error ' + e.message);
(async () => {
  console.log('http.get', await get(http, process.argv[1]));
  console.log('https.get', await get(https, process.argv[2]));
  console.log('fetch http', await fetched(process.argv[1]));
  console.log('fetch https', await fetched(process.argv[2]));
  console.log('refused http.get', await get(http, 'http://127.0.0.1:1/x'));
  console.log('refused fetch', await fetched('https://example.invalid/'));
})();
`

// Node 22.21+ and 24.5+ send http, https and fetch through the proxy with Env alone
// (NODE_USE_ENV_PROXY, the password from the URL). It needs such a node:
// PARLEY_TEST_NODE=/path/to/node (Node 20 on PATH ignores the variables).
func TestNodeHonoursProxyEnvironment(t *testing.T) {
	node := os.Getenv("PARLEY_TEST_NODE")
	if node == "" {
		t.Skip("set PARLEY_TEST_NODE to a node binary (22.21 or later) to run")
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain") }))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure") }))
	defer secure.Close()
	p := startProxy(t, plain.Listener.Addr().String(), secure.Listener.Addr().String())
	cmd := exec.CommandContext(t.Context(), node, "-e", nodeScript, plain.URL+"/p", secure.URL+"/s")
	cmd.Env = p.Environ(append(os.Environ(), "NODE_TLS_REJECT_UNAUTHORIZED=0", "NODE_NO_WARNINGS=1"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", node, err, out)
	}
	for _, want := range []string{"http.get 200 plain", "https.get 200 secure", "fetch http 200 plain", "fetch https 200 secure", "refused http.get 403 parley: 127.0.0.1:1 is not"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("node's output lacks %q:\n%s", want, out)
		}
	}
	for _, dest := range []string{"127.0.0.1:1", "example.invalid:443"} {
		if !slices.ContainsFunc(p.Refusals(), func(r Refusal) bool { return r.Destination == dest }) {
			t.Errorf("the proxy did not refuse %s (refusals %v); node's output:\n%s", dest, p.Refusals(), out)
		}
	}
	if n := strings.Count(p.Log(), "egress: tunnel"); n < 3 {
		t.Errorf("%d tunnels, want one for https.get and one for each fetch:\n%s", n, p.Log())
	}
}
