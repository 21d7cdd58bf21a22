package egress

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// BenchmarkStreamedReply streams a model's reply (server-sent events) directly and
// through the proxy, alternately in the same loop, and reports the proxy's share of the
// direct throughput (throughput-ratio: 1 is no loss; bytes over the time from request
// to the end of the body, summed) and the time it adds before the first byte of the
// body (added-ttfb-µs: the difference of the medians, which a machine shared with other
// work shifts less than the means). ns/op is one direct and one proxied reply.
//
//   - fakellm-http: an OpenAI chat completion from fakellm (500 chunks) over plain
//     http, which the proxy forwards in absolute form on a connection per request.
//   - sse-https: a TLS server streaming 1000 events of 200 bytes through a CONNECT
//     tunnel that stays open between replies, as an agent's client keeps it.
//   - sse-https-new-connection: the same with a new connection (and tunnel) per reply.
func BenchmarkStreamedReply(b *testing.B) {
	b.Run("fakellm-http", func(b *testing.B) {
		chunks := make([]string, 500)
		for i := range chunks {
			chunks[i] = fmt.Sprintf("token%d ", i)
		}
		srv := fakellm.New(b, fakellm.Reply{Content: chunks, Reuse: true})
		p := startProxy(b, hostOf(b, srv.URL()))
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
		compareStreams(b, p.Proxy, nil, true, func() *http.Request {
			req, err := http.NewRequest(http.MethodPost, srv.OpenAIURL()+"/chat/completions", strings.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			return req
		})
	})
	event := "data: " + strings.Repeat("x", 192) + "\n\n"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range 1000 {
			io.WriteString(w, event)
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	tlsConfig := srv.Client().Transport.(*http.Transport).TLSClientConfig
	newRequest := func() *http.Request {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/stream", nil)
		if err != nil {
			b.Fatal(err)
		}
		return req
	}
	for _, keepAlive := range []bool{true, false} {
		name := "sse-https"
		if !keepAlive {
			name = "sse-https-new-connection"
		}
		b.Run(name, func(b *testing.B) {
			p := startProxy(b, srv.Listener.Addr().String())
			compareStreams(b, p.Proxy, tlsConfig, keepAlive, newRequest)
		})
	}
}

func hostOf(b *testing.B, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		b.Fatal(err)
	}
	return u.Host
}

// streamTiming is one reply: time to the first byte of its body, time to its end, and
// its size.
type streamTiming struct {
	firstByte, total time.Duration
	bytes            int64
}

// streamTimings sums replies' totals and sizes and keeps their times to first byte.
type streamTimings struct {
	firstBytes []time.Duration
	total      time.Duration
	bytes      int64
}

func (s *streamTimings) add(t streamTiming) {
	s.firstBytes = append(s.firstBytes, t.firstByte)
	s.total += t.total
	s.bytes += t.bytes
}

func (s *streamTimings) medianFirstByte() time.Duration {
	slices.Sort(s.firstBytes)
	return s.firstBytes[len(s.firstBytes)/2]
}

func compareStreams(b *testing.B, p *Proxy, tlsConfig *tls.Config, keepAlive bool, newRequest func() *http.Request) {
	proxyURL, err := url.Parse(p.URL())
	if err != nil {
		b.Fatal(err)
	}
	direct := &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: !keepAlive, DisableCompression: true}
	proxied := &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: tlsConfig, DisableKeepAlives: !keepAlive, DisableCompression: true}
	defer direct.CloseIdleConnections()
	defer proxied.CloseIdleConnections()
	var viaDirect, viaProxy streamTimings
	n := 0
	for b.Loop() {
		// Alternate which goes first, so neither always finds the other's warm caches.
		if n%2 == 0 {
			viaDirect.add(timeStream(b, direct, newRequest()))
			viaProxy.add(timeStream(b, proxied, newRequest()))
		} else {
			viaProxy.add(timeStream(b, proxied, newRequest()))
			viaDirect.add(timeStream(b, direct, newRequest()))
		}
		n++
	}
	if viaDirect.bytes != viaProxy.bytes {
		b.Fatalf("direct replies carried %d bytes, proxied ones %d", viaDirect.bytes, viaProxy.bytes)
	}
	directRate := float64(viaDirect.bytes) / viaDirect.total.Seconds()
	proxyRate := float64(viaProxy.bytes) / viaProxy.total.Seconds()
	b.ReportMetric(proxyRate/directRate, "throughput-ratio")
	b.ReportMetric(directRate/1e6, "direct-MB/s")
	b.ReportMetric(proxyRate/1e6, "proxied-MB/s")
	b.ReportMetric(float64((viaProxy.medianFirstByte()-viaDirect.medianFirstByte()).Nanoseconds())/1e3, "added-ttfb-µs")
}

func timeStream(b *testing.B, tr *http.Transport, req *http.Request) streamTiming {
	start := time.Now()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: %s", req.Method, req.URL, resp.Status)
	}
	var t streamTiming
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 && t.bytes == 0 {
			t.firstByte = time.Since(start)
		}
		t.bytes += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	t.total = time.Since(start)
	return t
}
