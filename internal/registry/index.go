package registry

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/lazy"
)

// Index is the registry's registry.json.
type Index struct {
	Version string  `json:"version"`
	Agents  []Entry `json:"agents"`
}

// Entry is one agent of the registry.
type Entry struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Version      string       `json:"version"`
	Description  string       `json:"description"`
	Repository   string       `json:"repository,omitempty"`
	Website      string       `json:"website,omitempty"`
	License      string       `json:"license,omitempty"`
	Distribution Distribution `json:"distribution"`
}

// Distribution says how the agent is obtained: at least one of the three.
type Distribution struct {
	Binary map[string]BinaryTarget `json:"binary,omitempty"` // by platform, e.g. "linux-x86_64"
	Npx    *Package                `json:"npx,omitempty"`
	Uvx    *Package                `json:"uvx,omitempty"`
}

// BinaryTarget is the archive of one platform.
type BinaryTarget struct {
	Archive string            `json:"archive"`
	Cmd     string            `json:"cmd"` // relative to the unpacked archive
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	SHA256  string            `json:"sha256,omitempty"`
}

// Package is a distribution that a package runner (npx, uvx) fetches and runs.
type Package struct {
	Package string            `json:"package"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

var (
	idPattern     = lazy.Regexp(`^[a-z][a-z0-9-]*$`)
	sha256Pattern = lazy.Regexp(`^[0-9a-fA-F]{64}$`)
	// semverExact and pep440Exact are versions npm and uv cannot read as a range or a tag.
	semverExact = lazy.Regexp(`^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	pep440Exact = lazy.Regexp(`^([0-9]+!)?[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?(\+[0-9A-Za-z.]+)?$`)
)

// ParseIndex decodes and checks registry.json. Entries that break the format are left
// out and described in skipped (one registry mistake must not hide every agent); an index
// that cannot be read at all is an error.
func ParseIndex(data []byte) (idx *Index, skipped []string, err error) {
	var raw struct {
		Version string            `json:"version"`
		Agents  []json.RawMessage `json:"agents"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, fmt.Errorf("the registry's index is not valid JSON: %w", err)
	}
	if raw.Agents == nil {
		return nil, nil, errors.New(`the registry's index has no "agents" list: is this an ACP registry.json?`)
	}
	idx = &Index{Version: raw.Version}
	seen := map[string]bool{}
	for i, data := range raw.Agents {
		var e Entry
		if err := json.Unmarshal(data, &e); err != nil {
			skipped = append(skipped, fmt.Sprintf("agents[%d]: %v", i, err))
			continue
		}
		if err := e.check(); err != nil {
			skipped = append(skipped, fmt.Sprintf("agents[%d] (%q): %v", i, e.ID, err))
			continue
		}
		if seen[e.ID] {
			skipped = append(skipped, fmt.Sprintf("agents[%d]: a second agent with id %q", i, e.ID))
			continue
		}
		seen[e.ID] = true
		idx.Agents = append(idx.Agents, e)
	}
	slices.SortFunc(idx.Agents, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
	return idx, skipped, nil
}

// check is what parley needs of an entry before it shows or installs it.
func (e *Entry) check() error {
	if !idPattern().MatchString(e.ID) {
		return fmt.Errorf("id %q is not lower-case letters, digits and dashes", e.ID)
	}
	if e.Version == "" {
		return errors.New("no version")
	}
	d := e.Distribution
	if len(d.Binary) == 0 && d.Npx == nil && d.Uvx == nil {
		return errors.New("no distribution (binary, npx or uvx)")
	}
	for platform, t := range d.Binary {
		if t.Archive == "" || t.Cmd == "" {
			return fmt.Errorf("binary %s: archive and cmd are required", platform)
		}
		if t.SHA256 != "" && !sha256Pattern().MatchString(t.SHA256) {
			return fmt.Errorf("binary %s: sha256 %q is not 64 hex digits", platform, t.SHA256)
		}
	}
	for _, p := range []*Package{d.Npx, d.Uvx} {
		if p != nil && (p.Package == "" || strings.HasPrefix(p.Package, "-")) {
			return fmt.Errorf("package %q is not a package name", p.Package)
		}
	}
	return nil
}

// Find returns the entry with the given id.
func (idx *Index) Find(id string) (Entry, bool) {
	for _, e := range idx.Agents {
		if e.ID == id {
			return e, true
		}
	}
	return Entry{}, false
}

// Platform is this machine in the registry's words: "linux-x86_64", "darwin-aarch64",
// "windows-x86_64"…
func Platform() string { return platformOf(runtime.GOOS, runtime.GOARCH) }

func platformOf(goos, goarch string) string {
	arch := goarch
	switch goarch {
	case "amd64":
		arch = "x86_64"
	case "arm64":
		arch = "aarch64"
	}
	return goos + "-" + arch
}

// Kind is how an entry would be installed here: "binary" when it has an archive for this
// platform, else "npx", else "uvx"; "" when none fits this machine.
func (e *Entry) Kind() string {
	switch _, ok := e.Distribution.Binary[Platform()]; {
	case ok:
		return "binary"
	case e.Distribution.Npx != nil:
		return "npx"
	case e.Distribution.Uvx != nil:
		return "uvx"
	}
	return ""
}

// PackageName is the package of a runner's spec without its version: "@scope/name" of
// "@scope/name@1.2.3", "name" of "name==1.2" (uvx).
func PackageName(spec string) string {
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		spec = spec[:i]
	}
	if i := strings.IndexAny(spec, "=<>!~["); i > 0 {
		spec = spec[:i]
	}
	return spec
}

// Pinned reports whether a runner's spec names one exact version, not none, a range or a
// tag: for npx a whole semantic version ("name@1.2.3", "name@1.2.3-beta.1"; npm reads
// "name@1.2" as 1.2.x), for uvx a PEP 440 version ("name==1.2", "name@1.2.3.post1"; not
// "name==1.*" nor "name>=1").
func Pinned(runner, spec string) bool {
	v := PackageVersion(spec)
	if runner == "uvx" {
		return pep440Exact().MatchString(v)
	}
	return semverExact().MatchString(v)
}

// PackageVersion is the version a runner's spec pins ("1.2.3" of "name@1.2.3" or
// "name==1.2.3"), or "" when it names none or a range.
func PackageVersion(spec string) string {
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		return spec[i+1:]
	}
	if _, v, ok := strings.Cut(spec, "=="); ok {
		return v
	}
	return ""
}
