package egress

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// serve answers one client connection: one request, read by net/http's parser, then a
// tunnel, a forwarded reply or the proxy's own answer; the connection ends with it (a
// plain request's reply says Connection: close, so clients do not wait for a second).
func (p *Proxy) serve(client net.Conn) {
	limit := &headerLimit{r: client, n: maxHeaderBytes}
	br := bufio.NewReader(limit)
	client.SetReadDeadline(time.Now().Add(headerTimeout))
	req, err := http.ReadRequest(br)
	if err != nil {
		switch {
		case errors.Is(err, errHeaderTooLarge):
			p.answer(client, br, http.StatusRequestHeaderFieldsTooLarge, "the request's headers are too large", "")
		case errors.Is(err, os.ErrDeadlineExceeded):
			p.answer(client, br, http.StatusRequestTimeout, "the request did not come in time", "")
		case errors.Is(err, io.EOF):
			// Connected and left without a word.
		default:
			p.answer(client, br, http.StatusBadRequest, "malformed request: "+err.Error(), "")
		}
		return
	}
	client.SetReadDeadline(time.Time{})
	limit.n = math.MaxInt64
	if !p.authorized(req) {
		p.log.Warn("egress: request without the proxy's password", "method", req.Method, "target", req.RequestURI)
		p.answer(client, br, http.StatusProxyAuthRequired, "this proxy wants its password (the URL in HTTPS_PROXY carries it)",
			"Proxy-Authenticate: Basic realm=\"parley\"\r\n")
		return
	}
	switch {
	case req.Method == http.MethodConnect:
		p.tunnel(client, br, req)
	case req.URL.Scheme == "http" && req.URL.Host != "":
		p.forward(client, br, req)
	default:
		p.answer(client, br, http.StatusBadRequest, "this proxy takes CONNECT HOST:PORT and absolute http:// requests only", "")
	}
}

// authorized reports whether req carries the proxy's password (Basic, any user name).
func (p *Proxy) authorized(req *http.Request) bool {
	scheme, credentials, ok := strings.Cut(req.Header.Get("Proxy-Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(credentials)
	if err != nil {
		return false
	}
	_, password, ok := strings.Cut(string(raw), ":")
	return ok && subtle.ConstantTimeCompare([]byte(password), []byte(p.token)) == 1
}

// open connects to hostport for a request of method, if it is a destination the proxy
// allows; otherwise the client is answered (400 with badWhat and the reason for a
// malformed one, 403 for one not allowed) and ok is false.
func (p *Proxy) open(client net.Conn, br *bufio.Reader, hostport, method, badWhat string) (upstream net.Conn, dest destination, ok bool) {
	dest, err := parseDestination(hostport)
	if err != nil {
		p.answer(client, br, http.StatusBadRequest, badWhat+err.Error(), "")
		return nil, dest, false
	}
	if !p.allowed(dest) {
		p.refuse(client, br, dest, method)
		return nil, dest, false
	}
	upstream, ok = p.connect(client, br, dest)
	return upstream, dest, ok
}

// tunnel serves CONNECT: the destination is the request's authority, exactly HOST:PORT.
func (p *Proxy) tunnel(client net.Conn, br *bufio.Reader, req *http.Request) {
	upstream, dest, ok := p.open(client, br, req.RequestURI, req.Method, "CONNECT wants HOST:PORT: ")
	if !ok {
		return
	}
	defer p.forget(upstream)
	client.SetWriteDeadline(time.Now().Add(answerTimeout))
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	client.SetWriteDeadline(time.Time{})
	p.log.Debug("egress: tunnel", "destination", dest.String())
	p.splice(client, br, upstream)
}

// splice copies both ways until both sides have finished sending (or Close), passing
// each end-of-stream on as a half close. br holds what the client sent after its
// request, if anything.
func (p *Proxy) splice(client net.Conn, br *bufio.Reader, upstream net.Conn) {
	done := make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(done)
		io.Copy(upstream, br)
		closeWrite(upstream)
	}()
	io.Copy(client, upstream)
	closeWrite(client)
	<-done
}

func closeWrite(c net.Conn) {
	if hc, ok := c.(interface{ CloseWrite() error }); ok {
		hc.CloseWrite()
		return
	}
	c.Close()
}

// connect dials dest (resolving its name here), or answers 502 and reports false.
func (p *Proxy) connect(client net.Conn, br *bufio.Reader, dest destination) (net.Conn, bool) {
	ctx, cancel := context.WithTimeout(p.ctx, dialTimeout)
	defer cancel()
	upstream, err := p.dial(ctx, "tcp", dest.String())
	if err != nil {
		p.log.Warn("egress: cannot reach an allowed destination", "destination", dest.String(), "err", err)
		p.answer(client, br, http.StatusBadGateway, fmt.Sprintf("cannot reach %s: %v", dest, err), "")
		return nil, false
	}
	if !p.track(upstream) {
		return nil, false
	}
	return upstream, true
}

// refuse logs a destination outside the allow list, tells Config.Refused, and answers
// 403: the front-end has the news before the agent has its error.
func (p *Proxy) refuse(client net.Conn, br *bufio.Reader, dest destination, method string) {
	p.log.Warn("egress: destination refused", "destination", dest.String(), "method", method)
	if p.refused != nil {
		p.refused(Refusal{Destination: dest.String(), Method: method})
	}
	p.answer(client, br, http.StatusForbidden, dest.String()+" is not a destination this agent may reach", "")
}

// answer writes the proxy's own reply and ends the connection. What the client may
// still be sending is read and dropped for a moment first: a socket closed with unread
// data resets the connection, and the client could lose the answer to the reset.
func (p *Proxy) answer(client net.Conn, br *bufio.Reader, code int, text, header string) {
	body := "parley: " + text + "\n"
	client.SetWriteDeadline(time.Now().Add(answerTimeout))
	_, err := fmt.Fprintf(client, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n%s\r\n%s",
		code, http.StatusText(code), len(body), header, body)
	if err != nil {
		return
	}
	closeWrite(client)
	client.SetReadDeadline(time.Now().Add(time.Second))
	io.CopyN(io.Discard, br, 256<<10)
}

// headerLimit bounds what the parser may read of a request's line and headers; n is
// raised once they are read.
type headerLimit struct {
	r io.Reader
	n int64
}

var errHeaderTooLarge = errors.New("request headers too large")

func (l *headerLimit) Read(b []byte) (int, error) {
	if l.n <= 0 {
		return 0, errHeaderTooLarge
	}
	if int64(len(b)) > l.n {
		b = b[:l.n]
	}
	n, err := l.r.Read(b)
	l.n -= int64(n)
	return n, err
}
