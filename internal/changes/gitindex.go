package changes

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/filelist"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
)

// Files git vouches for. Reading and hashing every file is most of a first snapshot's
// cost, and keeping their content is most of the rest; in a git work tree, git already
// holds what most files hold. A file whose size, times and inode are what git's index
// recorded when git last knew it to hold its object (the test `git status` makes) is not
// read: its entry keeps the object's id (entry.blob), and is not written to the
// database (a later process asks the index again). Its content is taken from git's
// object store (`git cat-file --batch`, resolve) only when something needs it: when a
// turn changes or deletes the file, for what it was before. Where git would not give back
// what the file holds, nothing is taken from it:
//   - a file git would convert (end-of-line conversion, a filter, ident, an encoding): any
//     core.autocrlf, a core.attributesFile, or a text, eol, crlf, filter, ident or
//     working-tree-encoding attribute in the repository's info/attributes, the global or
//     system attributes, or a .gitattributes between the work tree's top and the files;
//   - an entry git does not check (assume-unchanged, skip-worktree, intent-to-add), one in
//     conflict, a racily clean one (changed no earlier than the index was written), a split
//     or sparse index, a repository whose objects are not SHA-1;
//   - a file with other names (hard links), an empty one, one larger than
//     Limits.MaxFileBytes, one changed within racyWindow of the snapshot.
//
// Only files new to the record that are not changes (the first snapshot of a process,
// files there all along) are taken from git, and only when there are at least
// indexMinFiles of them in a root (two git runs and the index cost more than reading a
// few files). What git may lose: an object only the index referred to, replaced there
// and pruned at once (`git add` then `git gc --prune=now`) before a turn changed the file;
// its change is then listed with what it was not kept.

// indexMinFiles is how many files a root must have to read for git's index to be asked;
// tests lower it.
var indexMinFiles = 256

// gitRepo is the repository a root's files were vouched for by.
type gitRepo struct {
	top string // the work tree's top directory
}

// indexEntry is a file as git's index recorded it: what git compares with lstat.
type indexEntry struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32
	ino, size                                uint32
	oid                                      [sha1.Size]byte
}

// matches reports whether s is the stat git recorded (git keeps 32 bits of each field).
func (e indexEntry) matches(s fileStat) bool {
	return s.size >= 0 && s.size < 1<<32 && uint32(s.size) == e.size && uint32(s.inode) == e.ino &&
		s.mtime >= 0 && uint32(s.mtime/1e9) == e.mtimeSec && uint32(s.mtime%1e9) == e.mtimeNsec &&
		s.ctime >= 0 && uint32(s.ctime/1e9) == e.ctimeSec && uint32(s.ctime%1e9) == e.ctimeNsec
}

// gitView is what a root's repository says of its files.
type gitView struct {
	repo    *gitRepo
	prefix  string // the root relative to the top, "" at the top, else with a final slash
	entries map[string]indexEntry
	written int64 // when the index was written (Unix nanoseconds)
	tree    *workspace.Tree
	attrs   map[string]bool // directories (relative to the root) known to have no converting .gitattributes
}

// vouch returns the entry of f when git vouches for its content, else nil.
func (g *gitView) vouch(f listed) *entry {
	ie, ok := g.entries[g.prefix+f.rel]
	if !ok || !ie.matches(f.stat) || f.stat.mtime >= g.written || f.stat.ctime >= g.written || !g.noAttributes(path.Dir(f.rel)) {
		return nil
	}
	return &entry{stat: f.stat, blob: hex.EncodeToString(ie.oid[:]), repo: g.repo}
}

// noAttributes reports whether the directory dir of the root (and those above it, up to
// the root) holds no .gitattributes that may convert content. The top's directories above
// the root were checked by gitViewOf.
func (g *gitView) noAttributes(dir string) bool {
	if ok, seen := g.attrs[dir]; seen {
		return ok
	}
	ok := true
	if dir != "." {
		ok = g.noAttributes(path.Dir(dir))
	}
	if ok {
		data, err := g.tree.ReadFile(path.Join(dir, ".gitattributes"), maxGitConfig)
		ok = errors.Is(err, os.ErrNotExist) || err == nil && !convertsContent(data)
	}
	g.attrs[dir] = ok
	return ok
}

// pendingView is a gitViewOf running beside the listing (a first look: the index will be
// asked, and the listing spends most of its time waiting for git).
type pendingView struct {
	done chan struct{}
	g    *gitView
}

func startGitView(ctx context.Context, dir string) *pendingView {
	p := &pendingView{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.g = gitViewOf(ctx, dir)
	}()
	return p
}

func (p *pendingView) wait() *gitView {
	<-p.done
	return p.g
}

// gitViewOf returns what the repository of the root dir says of its files, or nil when
// git is not to be trusted there (see above) or cannot tell.
func gitViewOf(ctx context.Context, dir string) *gitView {
	if !filelist.InWorkTree(dir) {
		return nil // starting git only to hear "not a git repository" costs milliseconds
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, git, append(filelist.GitReadOnly(dir), "rev-parse", "--path-format=absolute",
		"--show-toplevel", "--git-path", "index", "--git-path", "info/attributes")...)
	cmd.Env = filelist.GitEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 3 {
		return nil
	}
	top, index, info := filepath.FromSlash(lines[0]), filepath.FromSlash(lines[1]), filepath.FromSlash(lines[2])
	rel, err := filepath.Rel(top, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	if !gitConvertsNothing(ctx, git, dir, info) {
		return nil
	}
	prefix := ""
	if rel != "." {
		prefix = filepath.ToSlash(rel) + "/"
		// The .gitattributes of the directories from the top down to the root apply too.
		for d := filepath.Dir(dir); within(top, d); d = filepath.Dir(d) {
			if data, err := readOutside(filepath.Join(d, ".gitattributes")); err != nil || convertsContent(data) {
				return nil
			}
			if d == top {
				break
			}
		}
	}
	g := &gitView{repo: &gitRepo{top: top}, prefix: prefix, attrs: map[string]bool{}}
	if g.entries, g.written, err = readIndex(index, prefix); err != nil {
		return nil
	}
	return g
}

// gitConvertsNothing reports whether nothing in git's configuration or attributes outside
// the work tree may make a file's content differ from its object's.
func gitConvertsNothing(ctx context.Context, git, dir, infoAttributes string) bool {
	cmd := exec.CommandContext(ctx, git, append(filelist.GitReadOnly(dir), "config", "-z", "--get-regexp",
		`^(core\.autocrlf|core\.attributesfile|extensions\.objectformat)$`)...)
	cmd.Env = filelist.GitEnv()
	out, err := cmd.Output()
	if exit, ok := errors.AsType[*exec.ExitError](err); ok && exit.ExitCode() == 1 {
		out, err = nil, nil // none of them is set
	}
	if err != nil {
		return false
	}
	for kv := range strings.SplitSeq(string(out), "\x00") {
		key, value, _ := strings.Cut(kv, "\n")
		switch strings.ToLower(key) {
		case "core.autocrlf":
			if !strings.EqualFold(value, "false") {
				return false
			}
		case "core.attributesfile":
			return false
		case "extensions.objectformat":
			if !strings.EqualFold(value, "sha1") {
				return false
			}
		}
	}
	global := ""
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		global = filepath.Join(x, "git", "attributes")
	} else if home, err := os.UserHomeDir(); err == nil {
		global = filepath.Join(home, ".config", "git", "attributes")
	}
	for _, name := range []string{infoAttributes, global, "/etc/gitattributes", "/usr/local/etc/gitattributes"} {
		if name == "" {
			continue
		}
		if data, err := readOutside(name); err != nil || convertsContent(data) {
			return false
		}
	}
	return true
}

// readOutside reads a small file outside the workspace; a missing one is empty.
func readOutside(name string) ([]byte, error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGitConfig+1))
	if err == nil && len(data) > maxGitConfig {
		err = errors.New("too large")
	}
	return data, err
}

// convertsContent reports whether gitattributes text sets an attribute that makes git
// convert a file between its object and the work tree (a macro setting one counts as
// well). Unsetting one (-text, binary) converts nothing.
func convertsContent(data []byte) bool {
	for line := range strings.SplitSeq(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, attr := range fields[1:] {
			if strings.HasPrefix(attr, "-") || strings.HasPrefix(attr, "!") {
				continue
			}
			name, _, _ := strings.Cut(attr, "=")
			switch name {
			case "text", "eol", "crlf", "filter", "ident", "working-tree-encoding":
				return true
			}
		}
	}
	return false
}

// readIndex reads git's index at name: the files (stage 0, regular, checked by git) whose
// path starts with prefix, by path, and when the index was written. A split or sparse
// index, or one it cannot read, is an error.
func readIndex(name, prefix string) (map[string]indexEntry, int64, error) {
	f, err := os.Open(name) // one open: the time is the one of the bytes read (git renames a new index in)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, err
	}
	bad := errors.New("git's index is not one this reads")
	if len(data) < 12+sha1.Size || string(data[:4]) != "DIRC" {
		return nil, 0, bad
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, 0, bad
	}
	count := binary.BigEndian.Uint32(data[8:])
	end := len(data) - sha1.Size
	entries := make(map[string]indexEntry, count)
	conflicted := map[string]bool{}
	pos := 12
	var last []byte // the previous path (version 4 compresses each against it)
	for range count {
		if pos+62 > end {
			return nil, 0, bad
		}
		b := data[pos:]
		var e indexEntry
		e.ctimeSec, e.ctimeNsec = binary.BigEndian.Uint32(b[0:]), binary.BigEndian.Uint32(b[4:])
		e.mtimeSec, e.mtimeNsec = binary.BigEndian.Uint32(b[8:]), binary.BigEndian.Uint32(b[12:])
		e.ino = binary.BigEndian.Uint32(b[20:])
		mode := binary.BigEndian.Uint32(b[24:])
		e.size = binary.BigEndian.Uint32(b[36:])
		copy(e.oid[:], b[40:60])
		flags := binary.BigEndian.Uint16(b[60:])
		n := 62
		var extended uint16
		if flags&0x4000 != 0 { // extended flags (version 3 and later)
			if version < 3 || pos+64 > end {
				return nil, 0, bad
			}
			extended = binary.BigEndian.Uint16(b[62:])
			n = 64
		}
		var p []byte
		if version == 4 {
			strip, k := indexVarint(b[n : end-pos])
			if k <= 0 || strip > uint64(len(last)) {
				return nil, 0, bad
			}
			n += k
			nul := bytes.IndexByte(b[n:end-pos], 0)
			if nul < 0 {
				return nil, 0, bad
			}
			p = append(append([]byte(nil), last[:len(last)-int(strip)]...), b[n:n+nul]...)
			n += nul + 1
		} else {
			nul := bytes.IndexByte(b[n:end-pos], 0)
			if nul < 0 {
				return nil, 0, bad
			}
			p = b[n : n+nul]
			n = (n + nul + 8) &^ 7 // padded with 1 to 8 NULs to a multiple of 8
		}
		pos += n
		last = p
		if !bytes.HasPrefix(p, []byte(prefix)) {
			continue
		}
		key := string(p)
		switch {
		case flags&0x3000 != 0: // a stage of a conflict
			conflicted[key] = true
		case flags&0x8000 != 0, extended&0x6000 != 0: // assume-unchanged; skip-worktree, intent-to-add
		case mode&0o170000 != 0o100000: // a symbolic link, a submodule, a sparse directory
		default:
			entries[key] = e
		}
	}
	// Extensions follow: a split index keeps its entries elsewhere, a sparse one has
	// directories for files.
	for pos+8 <= end {
		sig, size := string(data[pos:pos+4]), int(binary.BigEndian.Uint32(data[pos+4:]))
		if sig == "link" || sig == "sdir" {
			return nil, 0, bad
		}
		pos += 8 + size
	}
	for p := range conflicted {
		delete(entries, p)
	}
	return entries, info.ModTime().UnixNano(), nil
}

// indexVarint decodes git's offset encoding (version 4 indexes): the value and the bytes
// it took, 0 when b ends first.
func indexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	v := uint64(b[0] & 0x7f)
	i := 1
	for b[i-1]&0x80 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		v = (v+1)<<7 | uint64(b[i]&0x7f)
		i++
	}
	return v, i
}

// gitBlobID is the id git gives content as a blob.
func gitBlobID(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// resolved is what a file vouched for by git was, from git's object store.
type resolved struct {
	v       version
	content []byte // to keep; nil when not kept
}

// vouch takes out of files (those a snapshot is to read) the ones git vouches for, with
// their entries: files new to the record that are not changes (baseline: this process's
// first look), in roots with at least indexMinFiles of them. early are the roots' views
// started beside the listing, if any.
func (t *tracker) vouch(ctx context.Context, files []listed, started time.Time, baseline bool, early map[string]*pendingView) ([]listed, map[string]*entry) {
	recent := started.Add(-racyWindow).UnixNano()
	var since int64 // a file new to the record changed before this was there all along
	if !baseline {
		since = t.lastScan.Add(-racyWindow).UnixNano()
	}
	candidate := func(f listed) bool {
		s := f.stat
		return f.old == nil && (baseline || s.ctime != 0 && s.ctime < since) && s.links == 1 &&
			s.size > 0 && s.size <= t.log.limits.MaxFileBytes && s.mtime < recent && s.ctime < recent
	}
	count := map[*workspace.Tree]int{}
	for _, f := range files {
		if candidate(f) {
			count[f.tree]++
		}
	}
	views := map[*workspace.Tree]*gitView{}
	for tree, n := range count {
		if n < indexMinFiles {
			continue
		}
		var g *gitView
		if p := early[tree.Path()]; p != nil {
			g = p.wait()
		} else {
			g = gitViewOf(ctx, tree.Path())
		}
		if g != nil {
			g.tree = tree
			views[tree] = g
		}
	}
	if len(views) == 0 {
		return files, nil
	}
	vouched := make(map[string]*entry, len(files))
	var rest []listed
	for _, f := range files {
		if g := views[f.tree]; g != nil && candidate(f) {
			if e := g.vouch(f); e != nil {
				vouched[f.abs] = e
				continue
			}
		}
		rest = append(rest, f)
	}
	return rest, vouched
}

// resolve reads from git what each entry vouched for by git held: its version (what a
// read would have made of it) and, for a text file, its content to keep. An object git no
// longer has (or git failing) gives a version whose content is not known, which cannot be
// restored.
func (t *tracker) resolve(ctx context.Context, entries []*entry) map[*entry]resolved {
	out := map[*entry]resolved{}
	byRepo := map[*gitRepo][]*entry{}
	for _, e := range entries {
		if e.blob != "" && !containsEntry(out, e) {
			out[e] = resolved{v: e.unknown()}
			byRepo[e.repo] = append(byRepo[e.repo], e)
		}
	}
	for repo, es := range byRepo {
		objects, _ := catFile(ctx, repo.top, es) // what was read before a failure is good
		for _, e := range es {
			content, ok := objects[e.blob]
			if !ok || int64(len(content)) != e.stat.size {
				continue
			}
			v, kept := versionOfState(State{Exists: true, Content: content, Size: int64(len(content)), stat: e.stat})
			if v.kind != kindText {
				kept = nil
			}
			out[e] = resolved{v: v, content: kept}
		}
	}
	return out
}

func containsEntry(m map[*entry]resolved, e *entry) bool {
	_, ok := m[e]
	return ok
}

// catFile reads the objects of entries from the repository at top, by id: those git has.
func catFile(ctx context.Context, top string, entries []*entry) (map[string][]byte, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.blob + "\n")
	}
	cmd := exec.CommandContext(ctx, git, append(filelist.GitReadOnly(top), "cat-file", "--batch")...)
	cmd.Env = filelist.GitEnv()
	cmd.Stdin = &in
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	r := bufio.NewReader(stdout)
	var readErr error
	for range entries {
		header, err := r.ReadString('\n')
		if err != nil {
			readErr = err
			break
		}
		fields := strings.Fields(header)
		if len(fields) != 3 {
			continue // "<id> missing"
		}
		size, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			readErr = err
			break
		}
		content := make([]byte, size+1) // with the newline that ends it
		if _, err := io.ReadFull(r, content); err != nil {
			readErr = err
			break
		}
		if fields[1] == "blob" {
			out[fields[0]] = content[:size]
		}
	}
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil && readErr == nil {
		readErr = err
	}
	return out, readErr
}

// keepResolved adds the content resolved for entries to blobs, once each.
func keepResolved(blobs []store.Blob, res map[*entry]resolved) []store.Blob {
	seen := map[string]bool{}
	for _, r := range res {
		if r.content != nil && !seen[r.v.hash] {
			seen[r.v.hash] = true
			blobs = append(blobs, store.Blob{Hash: r.v.hash, Content: r.content})
		}
	}
	return blobs
}
