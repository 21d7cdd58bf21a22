package main

// Issue 28, serving others safely: named tokens, listed and revoked without a restart;
// TLS; listening beyond loopback only with TLS or a proxy in front.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// selfSigned writes a certificate for 127.0.0.1 and its key to dir, and returns their
// files and a client that trusts it (and follows no redirects).
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, client *http.Client) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "parley test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	client = &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return certFile, keyFile, client
}

// closeReason is why the server closed a WebSocket, from the error a read returned.
func closeReason(err error) (websocket.StatusCode, string) {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code, ce.Reason
	}
	return -1, ""
}

// TestWebNamedTokens: parley web tokens adds a token (printed once, only its hash kept),
// lists it with its last use, revokes it; a running parley web lets it in, and refuses
// it the moment it is revoked, closing its open WebSocket with the reason; its log names
// the token of every connection and of the revocation.
func TestWebNamedTokens(t *testing.T) {
	t.Parallel()
	home := isolatedXDG(t)
	tokens := func(args ...string) result {
		t.Helper()
		return parleyIn(t, t.TempDir(), home, "", append([]string{"web", "tokens"}, args...)...)
	}
	r := tokens("add", "laptop")
	laptop := strings.TrimSpace(r.stdout)
	if r.code != 0 || len(laptop) < 40 || strings.Contains(laptop, "\n") || !strings.Contains(r.stderr, "only time") {
		t.Fatalf("tokens add: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := tokens("add", "laptop"); r.code == 0 || !strings.Contains(r.stderr, "exists already") {
		t.Errorf("the same name again: exit %d, %q", r.code, r.stderr)
	}
	if r := tokens("add", "run"); r.code != 2 {
		t.Errorf("the run token's name: exit %d, %q", r.code, r.stderr)
	}
	if r := tokens("add", "phone", "--url", "https://dev.example/parley"); r.code != 0 || !strings.HasPrefix(r.stdout, "https://dev.example/parley/?token=") {
		t.Errorf("tokens add --url: exit %d, %q", r.code, r.stdout)
	}
	file := filepath.Join(strings.TrimPrefix(home[slicesIndex(home, "XDG_DATA_HOME=")], "XDG_DATA_HOME="), "parley", "web-tokens.json")
	data, err := os.ReadFile(file)
	if err != nil || strings.Contains(string(data), laptop) || !strings.Contains(string(data), `"laptop"`) {
		t.Fatalf("%s: %v\n%s", file, err, data)
	}
	if fi, _ := os.Stat(file); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v", file, fi.Mode().Perm())
	}
	if r := tokens("list"); r.code != 0 || !strings.Contains(r.stdout, "NAME") || !strings.Contains(r.stdout, "laptop") || !strings.Contains(r.stdout, "never") {
		t.Errorf("tokens list: exit %d, %q", r.code, r.stdout)
	}

	s := startWeb(t, home, "--no-open", "--log", "info")
	cookie := sessionCookie(t, visit(t, "GET", s.base+"/?token="+laptop, nil))
	if resp := visit(t, "GET", s.base+"/", cookie); resp.StatusCode != http.StatusOK {
		t.Fatalf("the page with the named token's session: %d", resp.StatusCode)
	}
	own := cookie.Clone()
	own.Set("Origin", s.base)
	page, err := initializeOver(t, s.base, own, "acp")
	if err != nil {
		t.Fatal(err)
	}
	client, err := initializeOver(t, s.base, nil, "acp", "parley-token."+laptop)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(tokens("list").stdout, "\n") {
		if strings.HasPrefix(line, "laptop ") && strings.HasSuffix(line, "never") || strings.HasPrefix(line, "phone ") && !strings.HasSuffix(line, "never") {
			t.Errorf("tokens list after the laptop's token was used: %q", line)
		}
	}

	if r := tokens("revoke", "laptop"); r.code != 0 || !strings.Contains(r.stderr, "revoked") {
		t.Fatalf("tokens revoke: exit %d, %q", r.code, r.stderr)
	}
	for what, ws := range map[string]*websocket.Conn{"page": page, "client": client} {
		_, _, err := ws.Read(t.Context())
		if code, reason := closeReason(err); code != websocket.StatusPolicyViolation || !strings.Contains(reason, "laptop was revoked") {
			t.Errorf("the %s's WebSocket after the revocation: %v", what, err)
		}
	}
	if resp := visit(t, "GET", s.base+"/", cookie); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked token's session: %d, want 401", resp.StatusCode)
	}
	if resp := visit(t, "GET", s.base+"/?token="+laptop, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the revoked token: %d, want 403", resp.StatusCode)
	}
	if _, err := initializeOver(t, s.base, nil, "acp", "parley-token."+laptop); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("the revoked token on /acp: %v, want 401", err)
	}
	if r := tokens("revoke", "laptop"); r.code != 2 || !strings.Contains(r.stderr, "no such token") {
		t.Errorf("revoking it again: exit %d, %q", r.code, r.stderr)
	}
	if r := tokens("list"); strings.Contains(r.stdout, "laptop") || !strings.Contains(r.stdout, "phone") {
		t.Errorf("tokens list after the revocation: %q", r.stdout)
	}
	stopWeb(t, s)
	for _, want := range []string{`connection opened" token=laptop`, `revoked; its sessions and connections end" token=laptop`, `connection refused`} {
		if !strings.Contains(s.stderr.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, s.stderr.String())
		}
	}
}

// stopWeb ends parley web (as Ctrl-C does) and waits for it: its stderr is then whole.
func stopWeb(t *testing.T, s *webServer) {
	t.Helper()
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
}

func slicesIndex(env []string, prefix string) int {
	for i, kv := range env {
		if strings.HasPrefix(kv, prefix) {
			return i
		}
	}
	return -1
}

// TestWebServesTLS: with --tls-cert and --tls-key parley web prints an https address,
// sets a Secure cookie and speaks ACP over wss.
func TestWebServesTLS(t *testing.T) {
	t.Parallel()
	cert, key, client := selfSigned(t, t.TempDir())
	s := startWeb(t, nil, "--no-open", "--tls-cert", cert, "--tls-key", key)
	if !strings.HasPrefix(s.base, "https://127.0.0.1:") {
		t.Fatalf("parley web printed %s: want https://127.0.0.1:PORT", s.base)
	}
	resp, err := client.Get(s.base + "/?token=" + s.token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || !resp.Cookies()[0].Secure {
		t.Fatalf("sign-in over TLS: %d, cookies %v (want one, Secure)", resp.StatusCode, resp.Cookies())
	}
	ws, _, err := websocket.Dial(t.Context(), "wss"+strings.TrimPrefix(s.base, "https")+"/acp", &websocket.DialOptions{HTTPClient: client, Subprotocols: []string{"acp", "parley-token." + s.token}})
	if err != nil {
		t.Fatalf("wss: %v", err)
	}
	defer ws.CloseNow()
	if err := ws.Write(t.Context(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := ws.Read(t.Context()); err != nil || !strings.Contains(string(msg), `"result"`) {
		t.Errorf("initialize over wss: %s, %v", msg, err)
	}
	if resp, err := http.Get("http" + strings.TrimPrefix(s.base, "https") + "/?token=" + s.token); err == nil && resp.StatusCode != http.StatusBadRequest {
		t.Errorf("plain http on the TLS port: %d, want 400", resp.StatusCode)
	}
}

// TestWebBeyondLoopbackWantsTLSOrAProxy: --listen on an address others reach is refused
// without TLS, with what to do; --behind-proxy wants the proxy's --public-url; the TLS
// files are checked before anything is served.
func TestWebBeyondLoopbackWantsTLSOrAProxy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--listen", "192.0.2.1"}, []string{"--tls-cert FILE --tls-key FILE", "--behind-proxy", "127.0.0.1"}},
		{[]string{"--listen", "192.0.2.1", "--behind-proxy"}, []string{"--behind-proxy needs --public-url"}},
		{[]string{"--tls-cert", "cert.pem"}, []string{"go together"}},
		{[]string{"--tls-cert", "nothing.pem", "--tls-key", "nothing.key"}, []string{"nothing.pem", "PEM"}},
		{[]string{"--public-url", "dev.example/parley"}, []string{"--public-url", "https://"}},
		{[]string{"--public-url", "https://dev.example/?x=1"}, []string{"query"}},
	} {
		r := parley(t, "", append([]string{"web", "--no-open"}, tc.args...)...)
		for _, w := range tc.want {
			if r.code != 2 || !strings.Contains(r.stderr, w) {
				t.Errorf("parley web %v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, w)
			}
		}
	}
}
