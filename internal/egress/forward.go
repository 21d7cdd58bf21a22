package egress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// forward serves a plain http:// request in absolute form: it goes to the URL's host
// (port 80 when the URL names none) with that host as its Host header, on a connection
// of its own that closes after the reply.
func (p *Proxy) forward(client net.Conn, br *bufio.Reader, req *http.Request) {
	hostport := req.URL.Host
	if req.URL.Port() == "" {
		hostport = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	upstream, dest, ok := p.open(client, br, hostport, req.Method, "the URL's host: ")
	if !ok {
		return
	}
	defer p.forget(upstream)
	if strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
		// The body is sent on without waiting for the destination's word.
		if _, err := io.WriteString(client, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return
		}
	}
	outgoing(req)
	if err := req.Write(upstream); err != nil {
		p.answer(client, br, http.StatusBadGateway, fmt.Sprintf("sending the request to %s: %v", dest, err), "")
		return
	}
	resp, err := finalResponse(bufio.NewReader(upstream), req)
	if err != nil {
		p.answer(client, br, http.StatusBadGateway, fmt.Sprintf("reading the reply of %s: %v", dest, err), "")
		return
	}
	defer resp.Body.Close()
	p.log.Debug("egress: request", "destination", dest.String(), "method", req.Method, "status", resp.StatusCode)
	relay(client, resp, req)
}

// hopHeaders are the headers of one connection, not of the request or reply carried
// (RFC 9110 section 7.6.1, and the proxy's own).
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

func removeHopHeaders(h http.Header) {
	for _, listed := range h.Values("Connection") {
		for name := range strings.SplitSeq(listed, ",") {
			h.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

// outgoing makes req the request the destination gets: in origin form, its Host the
// URL's (the one that was checked, not a header of the client's choosing), without the
// proxy's headers, asking for the connection to close after the reply.
func outgoing(req *http.Request) {
	removeHopHeaders(req.Header)
	req.Header.Del("Expect")
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header["User-Agent"] = []string{""} // Write adds Go's own otherwise
	}
	req.Host = req.URL.Host
	req.RequestURI = ""
	req.Close = true
}

// finalResponse reads the destination's reply, passing over interim 1xx replies. A
// protocol switch is refused: Upgrade was not passed on, so one is a broken server.
func finalResponse(r *bufio.Reader, req *http.Request) (*http.Response, error) {
	for range 10 {
		resp, err := http.ReadResponse(r, req)
		if err != nil {
			return nil, err
		}
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			resp.Body.Close()
			return nil, errors.New("it switched protocols, which this proxy does not pass on")
		case resp.StatusCode >= 100 && resp.StatusCode < 200:
			continue
		}
		return resp, nil
	}
	return nil, errors.New("it sent interim replies and no final one")
}

// relay writes resp to the client as it comes: every piece of the body read from the
// destination is written and flushed at once, so a streamed reply (server-sent events)
// is not held back. A body of unknown length is chunked for an HTTP/1.1 client and
// ends with the connection for an older one.
func relay(client net.Conn, resp *http.Response, req *http.Request) error {
	noBody := req.Method == http.MethodHead || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified
	removeHopHeaders(resp.Header)
	chunked := false
	if !noBody {
		resp.Header.Del("Content-Length")
		switch {
		case resp.ContentLength >= 0:
			resp.Header.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
		case req.ProtoAtLeast(1, 1):
			chunked = true
			resp.Header.Set("Transfer-Encoding", "chunked")
		}
	}
	resp.Header.Set("Connection", "close")
	bw := bufio.NewWriterSize(client, 32<<10)
	fmt.Fprintf(bw, "HTTP/1.1 %s\r\n", resp.Status)
	resp.Header.Write(bw)
	bw.WriteString("\r\n")
	if err := bw.Flush(); err != nil || noBody {
		return err
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if chunked {
				fmt.Fprintf(bw, "%x\r\n", n)
			}
			bw.Write(buf[:n])
			if chunked {
				bw.WriteString("\r\n")
			}
			if ferr := bw.Flush(); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err // the client sees a cut reply
		}
	}
	if chunked {
		bw.WriteString("0\r\n\r\n")
	}
	return bw.Flush()
}
