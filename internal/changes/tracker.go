package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/filelist"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
	"github.com/parley-acp/parley/internal/xdg"
)

// A tracker follows one workspace for the records of one process: the files as its last
// snapshot saw them, and the turns running there now (which every change a snapshot
// finds is attributed to). Records of conversations in the same workspace share it. One
// snapshot, checkpoint or undo runs at a time (sem); everything below sem is held with it.
type tracker struct {
	log   *Log
	ws    int64
	root  string
	roots *workspace.Roots
	walk  bool // snapshots find changes on disk; false: only writes through parley are recorded
	refs  int  // records using it; under log.mu

	sem chan struct{}

	files    map[string]*entry // nil until the first snapshot
	lastScan time.Time         // when the last snapshot began; zero before the first
	scans    uint64            // scans begun: marks the entries each lists
	kept     int64             // bytes of content the workspace keeps, as last counted
	walkErr  error             // why the workspace is not followed (too many files)
	open     []*openTurn
	// view is what was ignored when the turns running now began, by root: what a turn
	// writes (a rule in .gitignore, a `git init`) cannot hide anything from its review.
	// nil between turns.
	view map[string]*rootView
	// listings are the roots' last listings, reused while what they depend on is
	// unchanged (reuse.go).
	listings map[string]*reusable
	reused   int // listings reused, for tests
	late     int // starts taken late (late.go), for tests
}

// list lists the root dir, with what is ignored and the rules: the kept listing when it
// is still current, else git or a walk, kept for the next snapshots.
func (t *tracker) list(ctx context.Context, dir string, tree *workspace.Tree) (filelist.Listing, error) {
	if k := t.listings[dir]; k != nil {
		if k.current() {
			t.reused++
			return k.fresh(tree), nil
		}
		delete(t.listings, dir)
	}
	// Asked for what is ignored and the rules (git's second listing runs beside the
	// first), a listing can be kept: the next snapshots reuse it while it is current,
	// whether they begin a turn or not (a first turn's start reuses what Prepare listed).
	began := time.Now()
	l, err := filelist.ListAll(ctx, t.roots, dir, tree, filelist.Options{Ignored: true, Rules: true})
	if err == nil {
		if k := keepListing(dir, l, began); k != nil {
			if t.listings == nil {
				t.listings = map[string]*reusable{}
			}
			t.listings[dir] = k
		}
	}
	return l, err
}

// rootView is a root's ignoring as a turn began: the rules in force, what they ignored,
// and the repositories git did not look into.
type rootView struct {
	rules   *filelist.Rules
	ignored map[string]bool // as filelist.Listing.Ignored: directories with a final slash
	repos   map[string]bool
	dirs    map[string]bool // the directories there were ("." the root), as far as the listing shows
}

// viewOf is a root's view as its listing shows it.
func viewOf(l filelist.Listing) *rootView {
	v := &rootView{rules: l.Rules, ignored: setOf(l.Ignored), repos: setOf(l.Repos), dirs: map[string]bool{".": true}}
	addDirs := func(dir string) {
		for dir != "." && dir != "/" && dir != "" && !v.dirs[dir] {
			v.dirs[dir] = true
			dir = path.Dir(dir)
		}
	}
	for _, f := range l.Files {
		addDirs(path.Dir(f.Rel))
	}
	for _, e := range l.Ignored {
		if dir, ok := strings.CutSuffix(e, "/"); ok {
			addDirs(dir)
		} else {
			addDirs(path.Dir(e))
		}
	}
	for _, r := range l.Repos {
		addDirs(r)
	}
	return v
}

// entry is a file as the last snapshot saw it.
type entry struct {
	stat fileStat
	kind string
	hash string
	// blob: the file was not read, git vouched for it (gitindex.go): its content is this
	// object of repo's, and kind and hash are not known until resolve reads it. Such an
	// entry is not in the database.
	blob string
	repo *gitRepo
	// racy: it changed so shortly before the snapshot that a later change within the
	// file system's clock tick could keep its times; the next snapshot reads it again.
	racy bool
	seen uint64 // the scan that last listed it (scan's own bookkeeping)
}

func (e *entry) version() version {
	if e == nil {
		return none
	}
	if e.blob != "" {
		return e.unknown() // resolve tells what it is
	}
	return version{kind: e.kind, hash: e.hash, size: e.stat.size, sig: e.stat.sig(), mode: permOf(e.stat.mode)}
}

// unknown is the version of the file when what it holds is not known.
func (e *entry) unknown() version {
	return version{kind: kindText, size: e.stat.size, sig: e.stat.sig(), mode: permOf(e.stat.mode)}
}

func (e *entry) stored(path string) store.ChangeFile {
	return store.ChangeFile{Path: path, Size: e.stat.size, Mtime: e.stat.mtime, Ctime: e.stat.ctime,
		Inode: e.stat.inode, Mode: e.stat.mode, Kind: e.kind, Hash: e.hash}
}

// racyWindow is how close to a snapshot a file's change must be for the snapshot to read
// it again next time: more than any file system's timestamp granularity that matters
// here (ext4 and tmpfs tick in milliseconds; FAT in two seconds is not served).
const racyWindow = time.Second

// openTurn is a turn running in the workspace: the files it changed so far, what they
// were before it and what they are now.
type openTurn struct {
	rec     *Record
	label   string
	undo    bool // the record of an undo
	started time.Time
	turn    store.ChangeTurn // ID 0 until it changed something
	files   map[string]*turnFile
	// beginErr: the snapshot that began it, taken while its prompt was on its way
	// (lateStart), failed; EndTurn reports it.
	beginErr error
}

type turnFile struct {
	before, after version
	written       bool
}

func (t *tracker) lock(ctx context.Context) error {
	select {
	case t.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *tracker) unlock() { <-t.sem }

// errTooManyFiles: the workspace has more files than Limits.MaxFiles.
type errTooManyFiles struct {
	root string
	max  int
}

func (e errTooManyFiles) Error() string {
	return fmt.Sprintf("%s has more than %d files git would not ignore: parley records only what the agent writes through it there (raise changes.max_files in config.json to follow it all)", e.root, e.max)
}

// load reads the files the workspace's last snapshot saw (by this or an earlier process).
func (t *tracker) load(ctx context.Context) error {
	if t.files != nil {
		return nil
	}
	rows, err := t.log.st.ChangeFiles(ctx, t.ws)
	if err != nil {
		return err
	}
	files := make(map[string]*entry, len(rows))
	for _, f := range rows {
		files[f.Path] = &entry{stat: fileStat{size: f.Size, mtime: f.Mtime, ctime: f.Ctime, inode: f.Inode, mode: f.Mode, links: 1}, kind: f.Kind, hash: f.Hash}
	}
	kept, err := t.log.st.ChangeBytes(ctx, t.ws)
	if err != nil {
		return err
	}
	t.files, t.kept = files, kept
	return nil
}

// scanResult is what a snapshot found: entries to record, blobs to keep, changes.
type scanResult struct {
	view     map[string]*rootView // the view of a turn's start, when scan took it
	started  time.Time
	put      map[string]*entry
	del      []string
	blobs    []store.Blob
	deltas   []delta
	contents map[string][]byte // the new content of changed files, for their line counts
	// turn and its deltas: for a start taken late, the changes made since the turn
	// began (the others only update the snapshot).
	turn       *openTurn
	turnDeltas []delta
}

type delta struct {
	path          string
	before, after version
}

// listed is a file a snapshot lists.
type listed struct {
	abs, rel string
	tree     *workspace.Tree
	stat     fileStat
	old      *entry // the record's entry for it; nil for a file new to the record
}

// readResult is a file read by a snapshot: its state, its version, and its content when
// the record may keep it.
type readResult struct {
	state   State
	v       version
	content []byte
}

// scan compares the workspace with the last snapshot: the files git would not ignore are
// listed, and only those whose size, times, inode or mode differ (or that changed just
// before the last snapshot) are read and hashed. It changes nothing: commit does.
//
// While turns run, what is ignored is what was ignored when they began (start: this
// snapshot begins a turn, and takes that view): every file the record followed is
// compared, ignored now or not, and a file ignored now that the rules of the start would
// not have ignored (below a directory newly ignored, or newly a repository of its own) is
// followed as well. The files git runs (hooks, its configuration) are compared too.
//
// late is the start of a turn taken while its prompt is on its way (lateStart): its
// listings and views were proven current when the turn began, and what changed since is
// the turn's.
func (t *tracker) scan(ctx context.Context, start bool, late *lateStart) (scanResult, error) {
	r := scanResult{started: time.Now(), put: map[string]*entry{}, contents: map[string][]byte{}}
	pinned := len(t.open) > 0 // the record's files stay in the view of the turns running
	start = start && !pinned  // a turn beginning beside another keeps the older view
	var since int64           // late: a change time from here on may be the turn's
	if late != nil {
		r.started, r.turn, start, pinned = late.began, late.turn, true, false
		since = late.began.Add(-lateSlack).UnixNano()
	}
	if start {
		r.view = map[string]*rootView{}
	}
	if err := t.load(ctx); err != nil {
		return r, err
	}
	baseline := t.lastScan.IsZero() // this process's first look: it finds, it reports nothing
	var trees []*workspace.Tree
	defer func() {
		for _, tr := range trees {
			tr.Close()
		}
	}()
	own := t.ownDirs()
	var early map[string]*pendingView // git's index, read beside a first look's listing
	if baseline && late == nil && len(t.files) == 0 {
		early = map[string]*pendingView{}
		for _, dir := range t.roots.Dirs() {
			early[dir] = startGitView(ctx, dir)
		}
		defer func() {
			for _, p := range early {
				p.wait()
			}
		}()
	}
	t.scans++
	gen := t.scans
	var seen map[string]bool // listed files the record has no entry for yet
	var all []listed         // the files to read: new to the record, or not as it saw them
	listedFiles := 0
	var buf []byte
	// consider adds a file to those compared, once. The path is built in buf: most files
	// are as the record saw them, and need no string of their own.
	consider := func(tree *workspace.Tree, prefix, rel string, info fs.FileInfo) error {
		if info.Mode()&fs.ModeSymlink != 0 || !info.Mode().IsRegular() {
			return nil // links and special files are not followed
		}
		buf = append(append(buf[:0], prefix...), filepath.FromSlash(rel)...) // rel is clean: no Join needed
		e := t.files[string(buf)]
		if e != nil && e.seen == gen || e == nil && seen[string(buf)] || len(own) > 0 && inAny(own, string(buf)) {
			return nil // a root inside another; parley's own database and logs
		}
		if listedFiles++; listedFiles > t.log.limits.MaxFiles {
			return errTooManyFiles{root: t.root, max: t.log.limits.MaxFiles}
		}
		st := statOf(info)
		if e != nil {
			e.seen = gen
			if !e.racy && e.stat.same(st) {
				return nil // as the record saw it: not read
			}
		}
		abs := string(buf)
		if e == nil {
			seen[abs] = true
		}
		all = append(all, listed{abs: abs, rel: rel, tree: tree, stat: st, old: e})
		return nil
	}
	treeOf := map[string]*workspace.Tree{}
	for _, dir := range t.roots.Dirs() {
		tree, err := t.roots.OpenTree(dir)
		if err != nil {
			return r, fmt.Errorf("listing %s: %w", dir, err)
		}
		trees = append(trees, tree)
		treeOf[dir] = tree
		view := t.view[dir]
		var l filelist.Listing
		if late != nil {
			l = late.listings[dir].fresh(tree)
			t.reused++
		} else if l, err = t.list(ctx, dir, tree); err != nil {
			return r, fmt.Errorf("listing %s: %w", dir, err)
		}
		prefix := dir
		if !strings.HasSuffix(prefix, string(filepath.Separator)) {
			prefix += string(filepath.Separator)
		}
		if seen == nil { // sized once: a first snapshot grows them by tens of thousands
			all = make([]listed, 0, max(0, len(l.Files)-len(t.files)))
			seen = make(map[string]bool, max(0, len(l.Files)-len(t.files)))
		}
		for _, f := range l.Files {
			if err := consider(tree, prefix, f.Rel, f.Info); err != nil {
				return r, err
			}
		}
		for _, rel := range gitControlFiles(tree, l.Repos) {
			if info, err := fs.Stat(tree.FS(), rel); err == nil {
				if err := consider(tree, prefix, rel, info); err != nil {
					return r, err
				}
			}
		}
		if late != nil {
			r.view[dir] = late.views[dir]
		} else if start {
			r.view[dir] = viewOf(l)
		}
		if pinned && view != nil {
			if err := t.unhide(ctx, tree, prefix, l, view, consider); err != nil {
				return r, err
			}
		}
	}
	if pinned {
		// The files the record followed when the turns began are compared whatever the
		// rules say now (a rule added meanwhile, a `git init` above them).
		for path, e := range t.files {
			if e.seen == gen || len(own) > 0 && inAny(own, path) {
				continue
			}
			for dir, tree := range treeOf {
				if !within(dir, path) {
					continue
				}
				rel, err := filepath.Rel(dir, path)
				if err != nil {
					break
				}
				rel = filepath.ToSlash(rel)
				if info, err := fs.Stat(tree.FS(), rel); err == nil {
					prefix := strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator)
					if err := consider(tree, prefix, rel, info); err != nil {
						return r, err
					}
				}
				break
			}
		}
	}
	toRead := all
	if late == nil {
		var vouched map[string]*entry
		toRead, vouched = t.vouch(ctx, toRead, r.started, baseline, early)
		if vouched != nil {
			r.put = vouched // the first thing put
		}
	}
	read, err := t.readAll(ctx, toRead, late != nil)
	if err != nil {
		return r, err
	}
	var gone []string // followed but not listed: deleted, or no longer followed
	for path, e := range t.files {
		if e.seen != gen && t.inRoots(path) {
			gone = append(gone, path)
		}
	}
	// What a file git vouched for held is read from git when a turn records its change.
	var res map[*entry]resolved
	if late != nil || !baseline && len(t.open) > 0 {
		var need []*entry
		for _, f := range toRead {
			if f.old != nil && f.old.blob != "" {
				need = append(need, f.old)
			}
		}
		for _, path := range gone {
			if e := t.files[path]; e.blob != "" {
				need = append(need, e)
			}
		}
		if len(need) > 0 {
			res = t.resolve(ctx, need)
			r.blobs = keepResolved(r.blobs, res)
		}
	}
	before := func(e *entry) version {
		if rv, ok := res[e]; ok {
			return rv.v
		}
		return e.version()
	}
	budget := t.log.limits.baselineBytes() - t.kept
	for i, f := range toRead {
		s, v, content := read[i].state, read[i].v, read[i].content
		if !s.Exists {
			if f.old != nil {
				f.old.seen = 0 // gone meanwhile: as if it had not been listed
				gone = append(gone, f.abs)
			}
			continue
		}
		old, oldV := f.old, before(f.old)
		e := &entry{stat: s.stat, kind: v.kind, hash: v.hash, racy: s.stat.mtime >= r.started.Add(-racyWindow).UnixNano() || s.stat.ctime >= r.started.Add(-racyWindow).UnixNano()}
		r.put[f.abs] = e
		changed := !oldV.same(v)
		if old != nil && old.blob != "" {
			sameBlob := content != nil && !s.Linked && gitBlobID(content) == old.blob
			if _, ok := res[old]; !ok {
				changed = !sameBlob || v.mode != permOf(old.stat.mode)
			}
			if sameBlob { // what git holds still: it stays vouched for
				e.kind, e.hash, e.blob, e.repo = "", "", old.blob, old.repo
				oldV.hash, oldV.kind = v.hash, v.kind
			}
		}
		// A file that is new to the record but did not change since well before the last
		// snapshot was there all along (no longer ignored, say): it is not a change. (File
		// times come from a coarse clock: a margin keeps a file made just after the
		// snapshot began from looking older than it.)
		if old == nil && !t.lastScan.IsZero() && e.stat.ctime != 0 && e.stat.ctime < t.lastScan.Add(-racyWindow).UnixNano() {
			changed = false
		}
		keep := content != nil && v.kind == kindText && !s.Linked
		switch {
		case changed && late != nil && s.stat.ctime >= since:
			// Changed since the turn began (or within lateSlack before): the turn's.
			r.turnDeltas = append(r.turnDeltas, delta{path: f.abs, before: oldV, after: v})
			if keep {
				r.contents[f.abs] = content
			}
		case changed && !baseline:
			r.deltas = append(r.deltas, delta{path: f.abs, before: oldV, after: v})
			if keep {
				r.contents[f.abs] = content
			}
		case oldV.same(v):
			keep = false // the same content: kept already (or git has it), if it could be
		default:
			keep = keep && int64(len(content)) <= budget // the first look at it: within the budget
		}
		if keep {
			r.blobs = append(r.blobs, store.Blob{Hash: v.hash, Content: content})
			budget -= int64(len(content))
		}
	}
	for _, path := range gone {
		e := t.files[path]
		// Not listed: deleted, or now ignored (then it is simply no longer followed).
		r.del = append(r.del, path)
		if s, err := t.stateOf(path); err == nil && s.Exists {
			continue
		}
		if late != nil {
			// Deleted since the turn began: its directory was as the listing saw it
			// then (lateStart), and deleting a file changes its directory.
			r.turnDeltas = append(r.turnDeltas, delta{path: path, before: before(e), after: none})
			continue
		}
		if !baseline {
			r.deltas = append(r.deltas, delta{path: path, before: before(e), after: none})
		}
	}
	slices.Sort(r.del)
	slices.SortFunc(r.deltas, func(a, b delta) int { return cmpString(a.path, b.path) })
	slices.SortFunc(r.turnDeltas, func(a, b delta) int { return cmpString(a.path, b.path) })
	return r, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// readAll reads the files with a few workers, a directory at a time: reading is most of
// a snapshot's cost when files changed, and the first snapshot reads every file. Each
// directory is opened once (through its tree) and its files named in one step.
//
// recheck: each file is stat'ed again once read, and a file that changed meanwhile keeps
// the later state (a start taken late reads while the agent may write: a read torn by a
// write must not pass for what the file held before the turn).
func (t *tracker) readAll(ctx context.Context, files []listed, recheck bool) ([]readResult, error) {
	type group struct {
		tree  *workspace.Tree
		dir   string
		files []int
	}
	var groups []*group
	byDir := map[string]*group{}
	for i, f := range files {
		dir := path.Dir(f.rel)
		key := f.tree.Path() + "\x00" + dir
		g := byDir[key]
		if g == nil {
			g = &group{tree: f.tree, dir: dir}
			byDir[key] = g
			groups = append(groups, g)
		}
		g.files = append(g.files, i)
	}
	states := make([]readResult, len(files))
	next := make(chan *group)
	var wg sync.WaitGroup
	for range min(len(groups), 2*runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for g := range next {
				sub, err := g.tree.Sub(g.dir)
				if err != nil {
					continue // gone meanwhile: its files are as if gone
				}
				for _, i := range g.files {
					f := files[i]
					s, err := readIn(sub.FS(), path.Base(f.rel), f.abs, t.log.limits.MaxFileBytes)
					if err != nil {
						s = State{} // no longer a regular file: as if it were gone
					}
					if recheck && s.Exists {
						if info, err := fs.Stat(sub.FS(), path.Base(f.rel)); err == nil {
							if now := statOf(info); !now.same(s.stat) {
								s.stat = now // changed while read: the turn's (and read again next time)
							}
						}
					}
					v, content := versionOfState(s) // hashed here: the workers share the cost
					states[i] = readResult{state: s, v: v, content: content}
				}
				sub.Close()
			}
		})
	}
	var err error
feed:
	for _, g := range groups {
		select {
		case next <- g:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	return states, err
}

// stateOf reads what path is now, without its content.
func (t *tracker) stateOf(path string) (State, error) {
	return RootsFiles(t.roots).Read(context.Background(), path, -1)
}

func (t *tracker) inRoots(path string) bool {
	for _, d := range t.roots.Dirs() {
		if within(d, path) {
			return true
		}
	}
	return false
}

// ownDirs are parley's own directories inside the workspace (its database changes on
// every turn; none of it is the agent's work): usually none.
func (t *tracker) ownDirs() []string {
	var out []string
	for _, d := range xdg.OwnDirs() {
		if d != "" && t.inRoots(filepath.Clean(d)) {
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}

func inAny(dirs []string, path string) bool {
	for _, d := range dirs {
		if d != "" && within(filepath.Clean(d), path) {
			return true
		}
	}
	return false
}

func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !(len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator))
}

// commit records what scan found: the workspace's files, the content to keep, and each
// change in every turn running now. Memory follows only once the database has it.
func (t *tracker) commit(ctx context.Context, r scanResult) error {
	if err := t.ensureSessions(ctx, len(r.deltas) > 0); err != nil {
		return err
	}
	if len(r.turnDeltas) > 0 {
		if _, err := r.turn.rec.session(ctx); err != nil {
			return err
		}
	}
	created := map[*openTurn]store.ChangeTurn{}
	if len(r.blobs) == 0 && len(r.put) == 0 && len(r.del) == 0 && len(r.deltas) == 0 && len(r.turnDeltas) == 0 {
		t.lastScan = r.started // nothing to write: a transaction (and its sync) would cost more than the snapshot
		if r.view != nil {
			t.view = r.view
		}
		return nil
	}
	err := t.log.st.UpdateChanges(ctx, func(tx *store.ChangesTx) error {
		slices.SortFunc(r.blobs, func(a, b store.Blob) int { return cmpString(a.Hash, b.Hash) })
		if err := tx.PutBlobs(t.ws, r.blobs); err != nil {
			return err
		}
		// In key order: tables are kept in that order, and rows inserted in it cost a
		// fraction of rows inserted at random (the first snapshot: 6 s to 2 s).
		// Files git vouched for are not in the database (a row they replace goes).
		put := make([]store.ChangeFile, 0, len(r.put))
		var del []string
		for path, e := range r.put {
			if e.blob == "" {
				put = append(put, e.stored(path))
			} else if old := t.files[path]; old != nil && old.blob == "" {
				del = append(del, path)
			}
		}
		slices.SortFunc(put, func(a, b store.ChangeFile) int { return cmpString(a.Path, b.Path) })
		if err := tx.PutFiles(t.ws, put); err != nil {
			return err
		}
		for _, path := range r.del {
			if e := t.files[path]; e == nil || e.blob == "" {
				del = append(del, path)
			}
		}
		if err := tx.DeleteFiles(t.ws, del); err != nil {
			return err
		}
		for _, ot := range t.open {
			for _, d := range r.deltas {
				if err := ot.record(tx, created, d.path, d.before, d.after, false); err != nil {
					return err
				}
			}
		}
		for _, d := range r.turnDeltas {
			if err := r.turn.record(tx, created, d.path, d.before, d.after, false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for ot, ct := range created {
		ot.turn = ct
	}
	for _, ot := range t.open {
		for _, d := range r.deltas {
			ot.apply(d.path, d.before, d.after, false)
		}
	}
	for _, d := range r.turnDeltas {
		r.turn.apply(d.path, d.before, d.after, false)
	}
	if len(t.files) == 0 {
		t.files = r.put // a first snapshot: no copy of tens of thousands of entries
	} else {
		for path, e := range r.put {
			t.files[path] = e
		}
	}
	for _, path := range r.del {
		delete(t.files, path)
	}
	for _, b := range r.blobs {
		t.kept += int64(len(b.Content))
	}
	t.lastScan = r.started
	if r.view != nil {
		t.view = r.view
	}
	return nil
}

// unhide adds to the files compared those that what the turns did hides: a file ignored
// now that was not when they began, the files below a directory ignored now that was
// not, and those of a directory that became a repository of its own (a `git init`, a
// .git file) — as the rules of the start would judge them. The turns' rules count in
// the directories they created (a virtualenv's .gitignore of "*", the target/ of a new
// crate), not in those there were: a .gitignore there is judged by the rules of the
// start, and so is listed.
func (t *tracker) unhide(ctx context.Context, tree *workspace.Tree, prefix string, l filelist.Listing, view *rootView,
	consider func(*workspace.Tree, string, string, fs.FileInfo) error) error {
	cache := map[string]*filelist.Rules{}
	var rulesIn func(dir string) *filelist.Rules // the rules that judge a file of dir
	rulesIn = func(dir string) *filelist.Rules {
		if dir == "." || dir == "" || view.dirs[dir] {
			return view.rules
		}
		if r, ok := cache[dir]; ok {
			return r
		}
		r := rulesIn(path.Dir(dir))
		if data, err := tree.ReadFile(dir+"/.gitignore", maxGitConfig); err == nil {
			r = r.With(dir, data)
		}
		cache[dir] = r
		return r
	}
	ignored := func(rel string, isDir bool) bool {
		if !isDir && path.Base(rel) == ".gitignore" {
			return view.rules.Ignored(rel, false)
		}
		return rulesIn(path.Dir(rel)).Ignored(rel, isDir)
	}
	var dirs []string
	for _, e := range l.Ignored {
		if view.ignored[e] {
			continue // ignored already then
		}
		if dir, ok := strings.CutSuffix(e, "/"); ok {
			dirs = append(dirs, dir)
			continue
		}
		if ignored(e, false) {
			continue
		}
		if info, err := fs.Stat(tree.FS(), e); err == nil {
			if err := consider(tree, prefix, e, info); err != nil {
				return err
			}
		}
	}
	for _, repo := range l.Repos {
		if !view.repos[repo] {
			dirs = append(dirs, repo)
		}
	}
	for _, dir := range dirs {
		if ignored(dir, true) {
			continue
		}
		sub, err := tree.Sub(dir)
		if err != nil {
			continue // gone meanwhile
		}
		err = fs.WalkDir(sub.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: skip it
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if p == "." {
				return nil
			}
			rel := dir + "/" + p
			if d.Name() == ".git" || ignored(rel, d.IsDir()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil // gone meanwhile
			}
			return consider(tree, prefix, rel, info)
		})
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

// snapshot scans and commits; start: it begins a turn. A workspace with too many files
// stops being followed (the error says so once; later snapshots do nothing).
func (t *tracker) snapshot(ctx context.Context, start bool) error {
	return t.snapshotLate(ctx, start, nil)
}

// snapshotLate is snapshot, for a start taken late when late is set.
func (t *tracker) snapshotLate(ctx context.Context, start bool, late *lateStart) error {
	if !t.walk || t.walkErr != nil {
		return nil
	}
	r, err := t.scan(ctx, start, late)
	if _, ok := errors.AsType[errTooManyFiles](err); ok {
		t.walkErr = err
		return err
	}
	if err != nil {
		return fmt.Errorf("taking a snapshot of the workspace: %w", err)
	}
	if err := t.commit(ctx, r); err != nil {
		return fmt.Errorf("recording a snapshot of the workspace: %w", err)
	}
	return nil
}

// ensureSessions makes sure every running turn's conversation is in the database before
// a change is attributed to it.
func (t *tracker) ensureSessions(ctx context.Context, needed bool) error {
	if !needed {
		return nil
	}
	for _, ot := range t.open {
		if _, err := ot.rec.session(ctx); err != nil {
			return err
		}
	}
	return nil
}

// record writes one change of a file into the turn's record, creating the turn's row at
// its first change (created collects the rows made in this transaction).
func (ot *openTurn) record(tx *store.ChangesTx, created map[*openTurn]store.ChangeTurn, path string, before, after version, written bool) error {
	turn := ot.turn
	if turn.ID == 0 {
		if c, ok := created[ot]; ok {
			turn = c
		} else {
			sid := ot.rec.sessionRow()
			c, err := tx.NewTurn(sid, ot.label, ot.undo, ot.started)
			if err != nil {
				return err
			}
			created[ot] = c
			turn = c
		}
	}
	return tx.AddTurnFile(turn.ID, store.ChangeTurnFile{Path: path, Before: before.stored(), After: after.stored(), Written: written})
}

// apply folds a change into the turn in memory: what the file was before the turn stays
// the first one seen.
func (ot *openTurn) apply(path string, before, after version, written bool) {
	if f, ok := ot.files[path]; ok {
		f.after = after
		f.written = f.written || written
		return
	}
	ot.files[path] = &turnFile{before: before, after: after, written: written}
}
