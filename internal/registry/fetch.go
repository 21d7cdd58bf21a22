package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/xdg"
)

// DefaultURL is the public ACP registry's index.
const DefaultURL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"

// EnvURL names the environment variable that replaces the configured registry.
const EnvURL = "PARLEY_REGISTRY_URL"

const (
	// DefaultMaxAge is how long a fetched index is used before it is fetched again.
	DefaultMaxAge = 24 * time.Hour
	// DefaultFetchTimeout bounds one fetch of the index.
	DefaultFetchTimeout = 10 * time.Second
	// maxIndexSize bounds the index: the public one is a few hundred kilobytes.
	maxIndexSize = 16 << 20
)

// Location is where the registry's index is: $PARLEY_REGISTRY_URL, else configured
// (config.json's registry_url), else DefaultURL.
func Location(configured string) string {
	if v := os.Getenv(EnvURL); v != "" {
		return v
	}
	if configured != "" {
		return configured
	}
	return DefaultURL
}

// CacheDir is where a fetched index is kept (see the package comment for why not the
// user's cache directory).
func CacheDir() string { return filepath.Join(xdg.StateDir(), "registry") }

// Loader reads the registry's index.
type Loader struct {
	// Location is a URL (https, or http on a loopback address) or a file path.
	Location string
	// CacheDir keeps the last index fetched from a URL ("" keeps nothing).
	CacheDir string
	MaxAge   time.Duration // DefaultMaxAge when 0
	Timeout  time.Duration // DefaultFetchTimeout when 0
	Client   *http.Client  // a client that refuses insecure redirects when nil
	Now      func() time.Time
}

// Loaded is an index and where it came from.
type Loaded struct {
	Index     *Index
	Skipped   []string  // entries left out, and why
	From      string    // the URL or file
	FetchedAt time.Time // when the index was fetched (zero for a file)
	// Offline is set when the registry could not be reached and the kept copy is used:
	// why it could not.
	Offline error
}

// WhyLeftOut says why the index's entry id was left out (a malformed sha256, a package
// name that is an option…), or "" when no entry of that id was.
func (l *Loaded) WhyLeftOut(id string) string {
	mark := fmt.Sprintf(" (%q): ", id) // as ParseIndex writes it
	for _, s := range l.Skipped {
		if _, why, ok := strings.Cut(s, mark); ok {
			return why
		}
	}
	return ""
}

// cacheFile is the kept copy of a URL's index.
type cacheFile struct {
	URL       string          `json:"url"`
	FetchedAt time.Time       `json:"fetched_at"`
	ETag      string          `json:"etag,omitempty"`
	Index     json.RawMessage `json:"index"`
}

// Load returns the index: from the file, from the kept copy when it is younger than
// MaxAge (unless refresh), else fetched, falling back to the kept copy of any age when
// the registry cannot be reached.
func (l *Loader) Load(ctx context.Context, refresh bool) (*Loaded, error) {
	loc := l.Location
	if loc == "" {
		loc = DefaultURL
	}
	if !isURL(loc) {
		path := strings.TrimPrefix(loc, "file://")
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading the registry's index: %w", err)
		}
		return parseLoaded(data, path, time.Time{}, nil)
	}
	if err := CheckURL(loc); err != nil {
		return nil, fmt.Errorf("the registry: %w", err)
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	maxAge := l.MaxAge
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	kept := l.readCache(loc)
	if kept != nil && !refresh && now().Sub(kept.FetchedAt) < maxAge && now().After(kept.FetchedAt.Add(-time.Minute)) {
		if loaded, err := parseLoaded(kept.Index, loc, kept.FetchedAt, nil); err == nil {
			return loaded, nil
		}
	}
	etag := ""
	if kept != nil {
		etag = kept.ETag
	}
	data, newTag, err := l.fetch(ctx, loc, etag)
	switch {
	case err == nil && data == nil: // not modified
		kept.FetchedAt = now()
		l.writeCache(kept)
		return parseLoaded(kept.Index, loc, kept.FetchedAt, nil)
	case err == nil:
		loaded, perr := parseLoaded(data, loc, now(), nil)
		if perr != nil {
			return nil, perr
		}
		l.writeCache(&cacheFile{URL: loc, FetchedAt: loaded.FetchedAt, ETag: newTag, Index: data})
		return loaded, nil
	case kept != nil && ctx.Err() == nil:
		return parseLoaded(kept.Index, loc, kept.FetchedAt, err)
	}
	return nil, err
}

func parseLoaded(data []byte, from string, fetched time.Time, offline error) (*Loaded, error) {
	idx, skipped, err := ParseIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return &Loaded{Index: idx, Skipped: skipped, From: from, FetchedAt: fetched, Offline: offline}, nil
}

func (l *Loader) fetch(ctx context.Context, loc, etag string) (data []byte, newTag string, err error) {
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, "", fmt.Errorf("the registry %s: %w", loc, err)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := l.client().Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %v", timeout)
		}
		return nil, "", fmt.Errorf("cannot reach the registry %s: %w", loc, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && etag != "":
		return nil, etag, nil
	case resp.StatusCode != http.StatusOK:
		return nil, "", fmt.Errorf("the registry %s answered %s", loc, resp.Status)
	}
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxIndexSize+1))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("not received within %v", timeout)
		}
		return nil, "", fmt.Errorf("reading the registry's index from %s: %w", loc, err)
	}
	if len(data) > maxIndexSize {
		return nil, "", fmt.Errorf("the registry's index at %s is larger than %d MiB", loc, maxIndexSize>>20)
	}
	return data, resp.Header.Get("ETag"), nil
}

func (l *Loader) client() *http.Client {
	if l.Client != nil {
		return l.Client
	}
	return SafeClient()
}

func (l *Loader) readCache(loc string) *cacheFile {
	if l.CacheDir == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(l.CacheDir, "registry.json"))
	if err != nil {
		return nil
	}
	var c cacheFile
	if json.Unmarshal(data, &c) != nil || c.URL != loc || len(c.Index) == 0 {
		return nil
	}
	return &c
}

// writeCache keeps c; a failure only costs a fetch next time.
func (l *Loader) writeCache(c *cacheFile) {
	if l.CacheDir == "" {
		return
	}
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	writeFileAtomic(filepath.Join(l.CacheDir, "registry.json"), data)
}

// writeFileAtomic writes data to a temporary file beside path and renames it over path,
// so that a reader sees the old content or the new, never a part.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func isURL(loc string) bool {
	return strings.HasPrefix(loc, "https://") || strings.HasPrefix(loc, "http://")
}

// CheckURL accepts what parley downloads from: https, or plain http to a loopback
// address (a test, a local mirror). Anything else could be changed on its way.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if host == "localhost" {
			return nil
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("refusing %s: plain http is allowed only on this machine (127.0.0.1, ::1, localhost); use https", raw)
	}
	return fmt.Errorf("refusing %s: only https (or http on this machine) is supported", raw)
}

// SafeClient is an HTTP client whose redirects are held to CheckURL too.
func SafeClient() *http.Client {
	return &http.Client{
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("too many redirects")
			}
			return CheckURL(req.URL.String())
		},
	}
}
