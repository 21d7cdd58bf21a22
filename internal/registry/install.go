package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/xdg"
)

// Installed is an agent installed from the registry: how to start it, and what it was.
type Installed struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	Description string            `json:"description,omitempty"`
	Kind        string            `json:"kind"` // binary, npx or uvx
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env,omitempty"`
	// Package is what npx or uvx fetches ("@scope/name@1.2.3"); Dir is where a binary
	// distribution was unpacked.
	Package     string    `json:"package,omitempty"`
	Dir         string    `json:"dir,omitempty"`
	From        string    `json:"from"` // the registry it came from
	InstalledAt time.Time `json:"installed_at"`
}

// installedFile is installed.json.
type installedFile struct {
	Agents map[string]Installed `json:"agents"`
}

// DefaultDir is where agents are installed: under parley's data directory, which the
// agents parley runs cannot write.
func DefaultDir() string { return filepath.Join(xdg.DataDir(), "agents") }

// ReadInstalled returns the agents installed in dir, by id; none when nothing was ever
// installed.
func ReadInstalled(dir string) (map[string]Installed, error) {
	data, err := os.ReadFile(filepath.Join(dir, "installed.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Installed{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the installed agents: %w", err)
	}
	var f installedFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w (remove it and install the agents again)", filepath.Join(dir, "installed.json"), err)
	}
	if f.Agents == nil {
		f.Agents = map[string]Installed{}
	}
	return f.Agents, nil
}

func writeInstalled(dir string, agents map[string]Installed) error {
	data, err := json.MarshalIndent(installedFile{Agents: agents}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "installed.json"), append(data, '\n')); err != nil {
		return fmt.Errorf("recording the installed agents: %w", err)
	}
	return nil
}

// Installer installs agents into Dir.
type Installer struct {
	Dir    string       // DefaultDir() when ""
	Client *http.Client // SafeClient() when nil
	// Say receives what the user should know while it works (a download, its size).
	Say func(msg string)
	// MaxDownload bounds an archive's size (2 GiB when 0).
	MaxDownload int64
	// AllowUnverified installs a binary distribution the registry gives no sha256 for
	// (refused otherwise, before anything is downloaded): its archive is then unpacked
	// and run as the server sent it.
	AllowUnverified bool
}

func (in *Installer) dir() string {
	if in.Dir == "" {
		return DefaultDir()
	}
	return in.Dir
}

func (in *Installer) say(format string, args ...any) {
	if in.Say != nil {
		in.Say(fmt.Sprintf(format, args...))
	}
}

// Install installs e (from the registry at from), replacing the version installed
// before, if any. The old version's files are removed only once the new one is recorded.
func (in *Installer) Install(ctx context.Context, e Entry, from string) (Installed, error) {
	dir := in.dir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Installed{}, fmt.Errorf("creating %s: %w", dir, err)
	}
	in.removeLeftovers()
	rec := Installed{ID: e.ID, Name: e.Name, Version: e.Version, Description: e.Description, From: from, InstalledAt: time.Now().UTC()}
	var err error
	switch rec.Kind = e.Kind(); rec.Kind {
	case "binary":
		err = in.installBinary(ctx, e, &rec)
	case "npx":
		p := e.Distribution.Npx
		rec.Command, rec.Package = npxCommand(), p.Package
		rec.Args = append([]string{"--yes", p.Package}, p.Args...)
		rec.Env = cleanEnv(p.Env)
		in.sayUnpinned(e.ID, "npx", p.Package)
	case "uvx":
		p := e.Distribution.Uvx
		rec.Command, rec.Package = "uvx", p.Package
		rec.Args = append([]string{p.Package}, p.Args...)
		rec.Env = cleanEnv(p.Env)
		in.sayUnpinned(e.ID, "uvx", p.Package)
	default:
		var platforms []string
		for p := range e.Distribution.Binary {
			platforms = append(platforms, p)
		}
		slices.Sort(platforms)
		err = fmt.Errorf("%s has no distribution for this machine (%s): it is built for %s", e.ID, Platform(), strings.Join(platforms, ", "))
	}
	if err != nil {
		return Installed{}, err
	}
	all, err := ReadInstalled(dir)
	if err != nil {
		all = map[string]Installed{} // a broken record is replaced, not kept broken
	}
	old, had := all[e.ID]
	all[e.ID] = rec
	if err := writeInstalled(dir, all); err != nil {
		if rec.Dir != "" && (!had || old.Dir != rec.Dir) {
			os.RemoveAll(rec.Dir)
		}
		return Installed{}, err
	}
	if had && old.Dir != "" && old.Dir != rec.Dir {
		in.removeTree(old.Dir)
	}
	return rec, nil
}

// removeLeftovers deletes what installs that were killed midway left (their temporary
// directories), once they are old enough not to be another install under way.
func (in *Installer) removeLeftovers() {
	old, _ := filepath.Glob(filepath.Join(in.dir(), ".install-*"))
	for _, p := range old {
		if st, err := os.Lstat(p); err == nil && time.Since(st.ModTime()) > time.Hour {
			os.RemoveAll(p)
		}
	}
}

// Remove forgets the agent id and deletes its files.
func (in *Installer) Remove(id string) (Installed, error) {
	dir := in.dir()
	all, err := ReadInstalled(dir)
	if err != nil {
		return Installed{}, err
	}
	rec, ok := all[id]
	if !ok {
		return Installed{}, fmt.Errorf("%s is not installed (`parley agents` lists what is)", id)
	}
	delete(all, id)
	if err := writeInstalled(dir, all); err != nil {
		return Installed{}, err
	}
	if rec.Dir != "" {
		in.removeTree(rec.Dir)
	}
	os.Remove(filepath.Join(dir, id)) // the agent's directory, once its versions are gone
	return rec, nil
}

// removeTree deletes an installed version's directory, only ever inside Dir.
func (in *Installer) removeTree(p string) {
	rel, err := filepath.Rel(in.dir(), p)
	if err != nil || !filepath.IsLocal(rel) {
		return
	}
	os.RemoveAll(p)
	os.Remove(filepath.Dir(p)) // the agent's directory, when this was its last version
}

func npxCommand() string {
	if runtime.GOOS == "windows" {
		return "npx.cmd"
	}
	return "npx"
}

// installBinary downloads, checks and unpacks e's archive for this platform into
// Dir/<id>/<version>, and fills rec's command.
func (in *Installer) installBinary(ctx context.Context, e Entry, rec *Installed) error {
	t := e.Distribution.Binary[Platform()]
	if err := CheckURL(t.Archive); err != nil {
		return fmt.Errorf("%s's archive: %w", e.ID, err)
	}
	if err := in.checkSum(e.ID, t.SHA256); err != nil {
		return err
	}
	u, err := url.Parse(t.Archive)
	if err != nil {
		return err
	}
	cmd, err := memberName(filepath.ToSlash(t.Cmd))
	if err != nil || cmd == "" {
		return fmt.Errorf("%s: the registry's cmd %q is not a path inside the archive", e.ID, t.Cmd)
	}
	if !idPattern().MatchString(e.ID) || !filepath.IsLocal(e.Version) || strings.ContainsAny(e.Version, `/\`) {
		return fmt.Errorf("%s: version %q cannot name a directory", e.ID, e.Version)
	}
	work, err := os.MkdirTemp(in.dir(), ".install-"+e.ID+"-")
	if err != nil {
		return fmt.Errorf("creating a directory to install into: %w", err)
	}
	defer os.RemoveAll(work)
	archive := filepath.Join(work, "download")
	sum, err := in.download(ctx, t.Archive, archive)
	if err != nil {
		return err
	}
	if t.SHA256 != "" && !strings.EqualFold(sum, t.SHA256) {
		return fmt.Errorf("refusing %s: the archive's sha256 is %s, the registry says %s (nothing was unpacked; the download may be corrupt or tampered with)", e.ID, sum, strings.ToLower(t.SHA256))
	}
	unpacked := filepath.Join(work, "unpacked")
	if err := os.Mkdir(unpacked, 0o755); err != nil {
		return err
	}
	kind := archiveKind(u.Path)
	if err := unpack(archive, kind, unpacked, cmd); err != nil {
		return fmt.Errorf("%s: %w", e.ID, err)
	}
	if cmd, err = findCommand(unpacked, cmd); err != nil {
		return fmt.Errorf("%s: %w", e.ID, err)
	}
	final := filepath.Join(in.dir(), e.ID, e.Version)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	// A directory for this version that no record points at is a leftover of an
	// install that did not finish; one the record points at is replaced the same way.
	stale := ""
	if _, err := os.Lstat(final); err == nil {
		stale = final + ".old-" + filepath.Base(work)
		if err := os.Rename(final, stale); err != nil {
			return fmt.Errorf("replacing %s: %w", final, err)
		}
	}
	if err := os.Rename(unpacked, final); err != nil {
		if stale != "" {
			os.Rename(stale, final)
		}
		return fmt.Errorf("installing into %s: %w", final, err)
	}
	if stale != "" {
		os.RemoveAll(stale)
	}
	rec.Dir = final
	rec.Command = filepath.Join(final, filepath.FromSlash(cmd))
	rec.Args = append([]string{}, t.Args...)
	rec.Env = cleanEnv(t.Env)
	return nil
}

// checkSum refuses, before anything is downloaded, an archive that could not be checked:
// one whose sha256 is not 64 hex digits (whatever the user allows: the registry says
// something is wrong), and one without a sha256 unless the user allowed that, in which
// case they are told what it means.
func (in *Installer) checkSum(id, sum string) error {
	switch {
	case sum != "" && !sha256Pattern().MatchString(sum):
		return fmt.Errorf("refusing %s: the registry's sha256 for its %s archive, %q, is not 64 hex digits, so the download cannot be checked (nothing was downloaded)", id, Platform(), sum)
	case sum != "":
		return nil
	case !in.AllowUnverified:
		return fmt.Errorf("refusing %s: the registry gives no sha256 for its %s archive, so nothing could show that the download is the one the registry lists (nothing was downloaded; --allow-unverified installs it anyway, unchecked)", id, Platform())
	}
	in.say("warning: the registry gives no sha256 for %s's %s archive: it is installed unverified (--allow-unverified), run as the server sends it", id, Platform())
	return nil
}

// sayUnpinned warns when a package runner's spec names no exact version: the runner then
// fetches whatever version is newest when the agent first starts, which nobody has seen.
func (in *Installer) sayUnpinned(id, runner, spec string) {
	if !Pinned(runner, spec) {
		in.say("note: the registry pins no exact version of %s (%s): %s fetches the newest %s on the agent's first start", id, spec, runner, PackageName(spec))
	}
}

// download fetches raw into file and returns its sha256, hashed as it is written.
func (in *Installer) download(ctx context.Context, raw, file string) (string, error) {
	limit := in.MaxDownload
	if limit <= 0 {
		limit = 2 << 30
	}
	client := in.Client
	if client == nil {
		client = SafeClient()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return "", err
	}
	in.say("downloading %s", raw)
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", raw, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("downloading %s: the server answered %s", raw, resp.Status)
	}
	if resp.ContentLength > limit {
		return "", fmt.Errorf("downloading %s: it is %d MiB, more than the %d MiB an agent may be", raw, resp.ContentLength>>20, limit>>20)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", raw, err)
	}
	if n > limit {
		return "", fmt.Errorf("downloading %s: it is more than the %d MiB an agent may be", raw, limit>>20)
	}
	in.say("downloaded %.1f MiB", float64(n)/(1<<20))
	return hex.EncodeToString(h.Sum(nil)), nil
}

// findCommand checks that cmd is a regular file inside dir (following links that stay
// inside) and makes it executable. When cmd is not there, the one file of its name
// anywhere in the archive is taken (archives often wrap everything in a folder).
func findCommand(dir, cmd string) (string, error) {
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(cmd))); errors.Is(err, fs.ErrNotExist) {
		var found []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == path.Base(cmd) {
				if rel, err := filepath.Rel(dir, p); err == nil {
					found = append(found, filepath.ToSlash(rel))
				}
			}
			return nil
		})
		if len(found) != 1 {
			return "", fmt.Errorf("the archive has no %s", cmd)
		}
		cmd = found[0]
	}
	out, err := escapes(dir, cmd)
	if err != nil || out {
		return "", fmt.Errorf("the archive's %s leads outside it", cmd)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	st, err := root.Stat(cmd)
	if err != nil {
		return "", fmt.Errorf("the archive's %s: %w", cmd, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("the archive's %s is not a file", cmd)
	}
	if err := root.Chmod(cmd, st.Mode().Perm()|0o755); err != nil {
		return "", fmt.Errorf("making %s executable: %w", cmd, err)
	}
	return cmd, nil
}

// cleanEnv is the manifest's env without the names that change how processes are found
// and started: those stay the user's.
func cleanEnv(env map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		if !Plumbing(k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// plumbingNames and plumbingPrefixes are environment variables that decide which
// programs run, from where, and what they read, beyond those that run code
// (safety.CodeVariable, the one list of those; PATH and IFS among them).
var (
	plumbingNames = []string{
		"HOME", "USERPROFILE", "SHELL", "COMSPEC", "SYSTEMROOT", "TMPDIR", "TMP", "TEMP",
		"APPDATA", "LOCALAPPDATA", "GEM_HOME", "GEM_PATH", "CLASSPATH", "SSL_CERT_FILE", "SSL_CERT_DIR",
	}
	plumbingPrefixes = []string{
		"NODE_", "NPM_", "YARN_", "PNPM_", "COREPACK_", "BUN_", "DENO_",
		"PYTHON", "PIP_", "UV_", "VIRTUAL_ENV", "CONDA_", "XDG_", "PARLEY_",
	}
)

// Plumbing reports whether a manifest may not set the environment variable name.
func Plumbing(name string) bool {
	n := strings.ToUpper(name)
	if n == "" || strings.ContainsAny(n, "=\x00") {
		return true
	}
	if _, ok := safety.CodeVariable(n); ok || slices.Contains(plumbingNames, n) {
		return true
	}
	for _, p := range plumbingPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}
