package changes

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/filelist"
	"github.com/parley-acp/parley/internal/workspace"
)

// Reusing a listing. Listing a root costs a git run or two (about 1 ms each, more on a
// loaded machine) at the start and the end of every turn, where the lstat of each file
// the record follows costs microseconds. So each listing is kept with
// stamps (size, times, inode and mode) of everything it depended on, and a later
// snapshot that finds every stamp as it was uses it again, with a fresh lstat of each of
// its files, instead of asking git.
//
// Why that loses nothing the record promises (every change made during a turn is the
// turn's, its files judged by the rules of the turn's start):
//   - What git lists (ls-files -co, and -oi --directory) is decided by the entries of the
//     directories it walks, git's index, and the ignore rules: the .gitignore files, the
//     repository's info/exclude, the excludes file and the configuration that names it.
//     The stamps cover each directory the listing shows a file, an ignored entry or a
//     repository in (and each repository's own directory), a .gitignore in each (there
//     or not), and the files outside the tree that filelist.Rules.Inputs names (the
//     index, the configuration files, a .git in each ancestor). Creating, deleting or
//     renaming a file changes its directory's modification and change times; writing a
//     file changes its own. A directory with nothing listed in it (empty, say) is not
//     stamped: a file created there before the turn is found by the next fresh listing,
//     and counts as the turn's only if it changed within racyWindow of the snapshot that
//     began it (scan's rule for files new to the record), which shows more, never less.
//   - The stamps are taken after the listing, and kept only when nothing stamped changed
//     within listingSettle (racyWindow) before the listing began: a change during the listing or after it
//     leaves a change time later than that, which the next comparison sees (a change time
//     cannot be set back). Where change times are not read (statOf outside Linux), nothing
//     is reused.
//   - A reused listing's files are stat'ed afresh, so a file's change is found exactly
//     as after a git run (size, times, inode, mode; read and hashed when they differ),
//     and the rules kept with the listing are those of the start that listed it, as the
//     stamps prove them unchanged since.
//
// When any stamp differs, git lists again (and that listing is kept).

// listingSettle is how long before a listing began what it depends on must have last
// changed for it to be kept: more than a file system's clock tick (racyWindow); a test
// shortens it.
var listingSettle = racyWindow

// reusable is a root's listing kept with the stamps that prove it current.
type reusable struct {
	listing filelist.Listing
	stamps  []stamp
}

// stamp is a path as it was: its stat, or that it did not exist.
type stamp struct {
	path   string
	exists bool
	stat   fileStat
}

func stampOf(name string) stamp {
	info, err := os.Lstat(name)
	if err != nil {
		return stamp{path: name}
	}
	return stamp{path: name, exists: true, stat: statOf(info)}
}

// keepListing returns l of the root dir with its stamps, or nil when it cannot be
// reused: something it depends on changed within listingSettle before began (when the
// listing started), or change times are not known here.
func keepListing(dir string, l filelist.Listing, began time.Time) *reusable {
	if l.Rules == nil {
		return nil // the rules, and what they were read from, are unknown
	}
	dirs := map[string]bool{".": true}
	addParents := func(rel string) {
		for d := path.Dir(rel); !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for _, f := range l.Files {
		addParents(f.Rel)
	}
	for _, e := range l.Ignored {
		addParents(trimSlash(e))
	}
	for _, r := range l.Repos {
		addParents(r)
		dirs[r] = true
	}
	names := append([]string(nil), l.Rules.Inputs()...)
	for d := range dirs {
		abs := filepath.Join(dir, filepath.FromSlash(d))
		names = append(names, abs, filepath.Join(abs, ".gitignore"))
	}
	limit := began.Add(-listingSettle).UnixNano()
	stamps := make([]stamp, 0, len(names))
	for _, name := range names {
		s := stampOf(name)
		if s.exists && (s.stat.ctime == 0 || s.stat.ctime >= limit || s.stat.mtime >= limit) {
			return nil
		}
		stamps = append(stamps, s)
	}
	return &reusable{listing: l, stamps: stamps}
}

func trimSlash(e string) string {
	if len(e) > 1 && e[len(e)-1] == '/' {
		return e[:len(e)-1]
	}
	return e
}

// current reports whether every stamp is as it was.
func (r *reusable) current() bool {
	for _, s := range r.stamps {
		now := stampOf(s.path)
		if now.exists != s.exists || s.exists && !now.stat.same(s.stat) {
			return false
		}
	}
	return true
}

// fresh is the kept listing with each file stat'ed now (one gone meanwhile is left out).
// Each directory is opened once per worker, through tree, as filelist does; the files are
// split among a few workers in runs of the listing's order (git lists a directory's files
// together), since the lstat of each file is most of what a snapshot costs.
func (r *reusable) fresh(tree *workspace.Tree) filelist.Listing {
	l := r.listing
	infos := make([]fs.FileInfo, len(l.Files))
	workers := min(runtime.GOMAXPROCS(0), 1+len(l.Files)/freshPerWorker)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(l.Files)/workers, (w+1)*len(l.Files)/workers
		wg.Go(func() { statRun(tree, l.Files[lo:hi], infos[lo:hi]) })
	}
	wg.Wait()
	files := make([]filelist.File, 0, len(l.Files))
	for i, f := range l.Files {
		if info := infos[i]; info != nil {
			files = append(files, filelist.File{Rel: f.Rel, Symlink: info.Mode()&fs.ModeSymlink != 0, Info: info})
		}
	}
	l.Files = files
	return l
}

// freshPerWorker is how many files make another worker worth starting.
const freshPerWorker = 2000

// statRun lstats files into infos (nil for one gone), opening each directory once.
func statRun(tree *workspace.Tree, files []filelist.File, infos []fs.FileInfo) {
	var sub *workspace.Tree
	subDir := ""
	for i, f := range files {
		if d := path.Dir(f.Rel); sub == nil || d != subDir {
			if sub != nil {
				sub.Close()
			}
			subDir = d
			var err error
			if sub, err = tree.Sub(d); err != nil {
				sub = nil
				continue
			}
		}
		if info, err := fs.Stat(sub.FS(), path.Base(f.Rel)); err == nil {
			infos[i] = info
		}
	}
	if sub != nil {
		sub.Close()
	}
}
