package safety

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Context says where a command runs. Paths are judged lexically: no file is looked at.
type Context struct {
	// Workspace is the workspace roots, absolute. Without any, every path counts as
	// outside the workspace.
	Workspace []string
	// Dir is the absolute directory the command starts in; "" means the first root.
	Dir string
	// Home is the user's home directory, which ~ and $HOME name; "" means unknown (then
	// ~ is only known when the command runs).
	Home string
	// Files decides which files are sensitive: writing one is High. Nil means
	// DefaultFileRules.
	Files *FileRules
	// Protected are directories no command may change, wherever they are (parley's own
	// configuration, data and state: an agent must not grant itself permissions, even
	// from a workspace that contains them): writing or deleting in them is Critical.
	Protected []string
}

func (c Context) normalized() Context {
	var roots []string
	for _, r := range c.Workspace {
		if filepath.IsAbs(r) {
			roots = append(roots, filepath.Clean(r))
		}
	}
	c.Workspace = roots
	if c.Dir == "" && len(roots) > 0 {
		c.Dir = roots[0]
	}
	if c.Dir != "" {
		c.Dir = filepath.Clean(c.Dir)
	}
	if c.Home != "" {
		c.Home = filepath.Clean(c.Home)
	}
	var protected []string
	for _, p := range c.Protected {
		if filepath.IsAbs(p) {
			protected = append(protected, filepath.Clean(p))
		}
	}
	c.Protected = protected
	if c.Files == nil {
		c.Files = defaultFiles()
	}
	return c
}

// place is where a path lies, as far as the analysis can tell.
type place int

const (
	placeInside  place = iota // strictly inside a workspace root
	placeRoot                 // a workspace root itself
	placeTemp                 // inside a temporary directory
	placeOutside              // anywhere else
	placeDevice               // a device node that is not a harmless one
	placeUnknown              // only known when the command runs
)

// location is a path argument judged: where it lies and how to name it to a user.
type location struct {
	place place
	path  string // absolute and clean; "" when unknown
	shown string // as written
	rel   string // relative to its workspace root (for sensitive-file rules), "" outside
	// whole is set for a glob that covers all of its directory ("build/*", "*"): a
	// recursive delete of it empties path.
	whole bool
}

// outside reports whether the location is not in the workspace (nor a temporary
// directory): a root itself counts as inside.
func (l location) outside() bool {
	return l.place != placeInside && l.place != placeRoot && l.place != placeTemp
}

// harmlessDevices can be written without changing anything.
var harmlessDevices = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"/dev/null": true, "/dev/zero": true, "/dev/random": true, "/dev/urandom": true,
		"/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/full": true,
	}
})

var tempDirs = func() []string {
	dirs := []string{"/tmp", "/var/tmp"}
	if t := filepath.Clean(os.TempDir()); t != "/tmp" && filepath.IsAbs(t) {
		dirs = append(dirs, t)
	}
	return dirs
}()

// locate judges a path argument w, relative to dir ("" when the current directory is
// only known when the command runs).
func (a *analyzer) locate(w word, dir string) location {
	loc := location{shown: w.src}
	if loc.shown == "" {
		loc.shown = w.val
	}
	value := w.val
	if !w.lit {
		if !w.glob || w.split || w.subst || len(w.params) > 0 {
			loc.place = placeUnknown
			return loc
		}
		if w.brace {
			return a.locateBraces(w, dir)
		}
		// A glob expands inside the directory its literal part names; a component
		// starting with a dot may match "..", which climbs one level.
		value, loc.whole = globDir(w.prefix, w.val)
	}
	if !filepath.IsAbs(value) {
		if dir == "" {
			loc.place = placeUnknown
			return loc
		}
		value = filepath.Join(dir, value)
	}
	loc.path = filepath.Clean(value)
	loc.place, loc.rel = a.placeOf(loc.path)
	return loc
}

// maxBraceWords bounds how many words a brace expansion is judged as; more are unknown.
const maxBraceWords = 64

// locateBraces judges each word a brace expansion makes ({build,/} is build and /) and
// returns the one that reaches furthest.
func (a *analyzer) locateBraces(w word, dir string) location {
	words, ok := expandBraces(w.val, maxBraceWords)
	if !ok {
		return location{place: placeUnknown, shown: w.src}
	}
	var worst location
	for i, v := range words {
		alt := literalWord(v)
		if _, globAt, _ := unescapeUnquoted(v); globAt >= 0 {
			alt = word{val: v, prefix: v[:globAt], glob: true}
		}
		alt.src = w.src
		loc := a.locate(alt, dir)
		if i == 0 || reach(loc) > reach(worst) {
			worst = loc
		}
	}
	return worst
}

// reach orders places by how far they are from the workspace.
func reach(l location) int {
	r := map[place]int{placeInside: 0, placeTemp: 1, placeRoot: 2, placeOutside: 3, placeUnknown: 4, placeDevice: 5}[l.place]
	if l.whole {
		r = r*2 + 1
	} else {
		r *= 2
	}
	return r
}

// expandBraces expands Bash brace expansions in s: {a,b} lists (nested too) and {x..y}
// sequences (whose words, digits or letters, stand in as one). ok is false past max words.
func expandBraces(s string, max int) (words []string, ok bool) {
	open := -1
	for i := 0; i < len(s); i++ {
		if s[i] == '{' && braceExpands(s[i:]) {
			open = i
			break
		}
	}
	if open < 0 {
		return []string{s}, true
	}
	depth, end := 0, -1
	var commas []int
	for i := open; i < len(s) && end < 0; i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				end = i
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	if end < 0 {
		return []string{s}, true
	}
	var alts []string
	if len(commas) == 0 { // a sequence: one word stands for all
		alts = []string{strings.SplitN(s[open+1:end], "..", 2)[0]}
	} else {
		start := open + 1
		for _, c := range append(commas, end) {
			alts = append(alts, s[start:c])
			start = c + 1
		}
	}
	for _, alt := range alts {
		more, ok := expandBraces(s[:open]+alt+s[end+1:], max-len(words))
		if !ok || len(words)+len(more) > max {
			return nil, false
		}
		words = append(words, more...)
	}
	return words, true
}

// globDir returns the directory a glob expands in, and whether the glob covers all of it.
func globDir(prefix, pattern string) (string, bool) {
	dir := ""
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dir = prefix[:i+1]
	}
	first := pattern[len(dir):]
	if i := strings.IndexByte(first, '/'); i >= 0 {
		first = first[:i]
	}
	if dir == "" {
		dir = "."
	}
	if strings.HasPrefix(first, ".") {
		return dir + "/..", true
	}
	whole := first == "*" || first == "**" || strings.HasPrefix(first, "{")
	return dir, whole
}

func (a *analyzer) placeOf(path string) (place, string) {
	for _, root := range a.ctx.Workspace {
		switch rel := relativeTo(root, path); {
		case rel == ".":
			return placeRoot, ""
		case rel != "":
			return placeInside, rel
		}
	}
	if strings.HasPrefix(path, "/dev/") && !harmlessDevices()[path] && !strings.HasPrefix(path, "/dev/fd/") && !strings.HasPrefix(path, "/dev/shm/") {
		return placeDevice, ""
	}
	for _, t := range tempDirs {
		if rel := relativeTo(t, path); rel != "" && rel != "." && !a.ctx.holdsUserFiles(t) {
			return placeTemp, ""
		}
	}
	return placeOutside, ""
}

// holdsUserFiles reports whether the temporary directory t holds the workspace or the
// home directory: then what lies beside them there is not scratch space (a workspace in
// $TMPDIR/x makes $TMPDIR/x/../victim as much the user's as any other directory).
func (c Context) holdsUserFiles(t string) bool {
	for _, p := range append([]string{c.Home}, c.Workspace...) {
		if p != "" && relativeTo(t, p) != "" {
			return true
		}
	}
	return false
}

// relativeTo returns path relative to root when it lies inside it ("." for root
// itself), else "".
func relativeTo(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// describe names a location for a reason: the path as written, and where it lies when
// that is not obvious from the words.
func (l location) describe() string {
	switch l.place {
	case placeRoot:
		return l.shown + " (the workspace itself)"
	case placeOutside:
		if l.path != "" && l.path != l.shown {
			return l.shown + " (" + l.path + ", outside the workspace)"
		}
		return l.shown + " (outside the workspace)"
	case placeUnknown:
		return l.shown + " (a path only known when the command runs)"
	case placeDevice:
		return l.shown + " (a device)"
	}
	return l.shown
}

// protects returns the protected directory that holds path, or "".
func (c Context) protects(path string) string {
	for _, p := range c.Protected {
		if path != "" && relativeTo(p, path) != "" {
			return p
		}
	}
	return ""
}
