package catalog

import (
	"bufio"
	"crypto/sha512"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/registry"
)

// Fetch is a package that a runner downloads before it starts the agent.
type Fetch struct {
	Runner  string // "npx" or "uvx"
	Package string // as the runner is given it: "@scope/name@1.2.3", "name==1.0"
}

// String says it for a person: "@scope/name@1.2.3 through npx".
func (f Fetch) String() string { return f.Package + " through " + f.Runner }

// NeedsDownload reports whether starting a must download its package first: it has a
// Fetch that NeedsDownload.
func (a Agent) NeedsDownload(dir string) bool { return a.Fetch.NeedsDownload(dir) }

// NeedsDownload reports whether the runner must download the package: it is in none of
// the places the runner would take it from without the network. For npx: npx's own cache
// (the _npx folder of npm's cache, where npx installs what it runs), the project around
// dir (npx runs a project's own node_modules), and npm's global packages. For uvx: uv's
// installed tools and the environments uv keeps in its cache. It reads only local files.
// A nil Fetch needs nothing.
func (f *Fetch) NeedsDownload(dir string) bool {
	if f == nil {
		return false
	}
	switch f.Runner {
	case "npx":
		return !npxHas(f.Package, dir)
	case "uvx":
		return !uvxHas(f.Package)
	}
	return false
}

// FetchOf is the package a command line fetches when it runs a package runner (npx or
// uvx, with the options before the package), or nil.
func FetchOf(command string, args []string) *Fetch {
	runner := strings.TrimSuffix(strings.ToLower(filepath.Base(command)), ".cmd")
	runner = strings.TrimSuffix(runner, ".exe")
	var valued map[string]bool // options whose value is the next word
	var packageOpts map[string]bool
	switch runner {
	case "npx":
		valued = map[string]bool{"-c": true, "--call": true, "--cache": true, "--registry": true, "--userconfig": true}
		packageOpts = map[string]bool{"-p": true, "--package": true}
	case "uvx":
		valued = map[string]bool{"--with": true, "--python": true, "-p": true, "--index": true, "--index-url": true, "--extra-index-url": true, "--cache-dir": true}
		packageOpts = map[string]bool{"--from": true}
	default:
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case packageOpts[name] && hasValue:
			return &Fetch{Runner: runner, Package: value}
		case packageOpts[name] && i+1 < len(args):
			return &Fetch{Runner: runner, Package: args[i+1]}
		case valued[name] && !hasValue:
			i++
		case a == "--":
			if i+1 < len(args) {
				return &Fetch{Runner: runner, Package: args[i+1]}
			}
			return nil
		case !strings.HasPrefix(a, "-"):
			return &Fetch{Runner: runner, Package: a}
		}
	}
	return nil
}

// npxHas reports whether npx would find spec without downloading it.
func npxHas(spec, dir string) bool {
	name, version := registry.PackageName(spec), registry.PackageVersion(spec)
	if cache := npmCacheDir(); cache != "" {
		// npx installs the packages of one command line into _npx/<hash>, the hash being
		// the first 16 hex digits of the SHA-512 of the package specs, sorted, one a line.
		sum := sha512.Sum512([]byte(spec))
		if hasNodePackage(filepath.Join(cache, "_npx", hex.EncodeToString(sum[:])[:16]), name, version) {
			return true
		}
	}
	if dir != "" && hasNodePackage(npmProject(dir), name, version) {
		return true
	}
	return hasNodePackage(npmGlobalModules(), name, version)
}

// hasNodePackage reports whether the node_modules of prefix hold name, at version when
// one is given.
func hasNodePackage(prefix, name, version string) bool {
	if prefix == "" {
		return false
	}
	data, err := os.ReadFile(filepath.Join(prefix, "node_modules", filepath.FromSlash(name), "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return false
	}
	return version == "" || pkg.Version == version
}

// npmCacheDir is npm's cache: $npm_config_cache, the user's .npmrc cache=, else npm's
// default.
func npmCacheDir() string {
	for _, v := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if dir := os.Getenv(v); dir != "" {
			return dir
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	if dir := npmrcValue(filepath.Join(home, ".npmrc"), "cache"); dir != "" {
		return strings.Replace(dir, "~", home, 1)
	}
	if runtime.GOOS == "windows" {
		if local := os.Getenv("LOCALAPPDATA"); local != "" {
			return filepath.Join(local, "npm-cache")
		}
	}
	return filepath.Join(home, ".npm")
}

// npmrcValue is key's value in an .npmrc file, or "".
func npmrcValue(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// npmProject is the folder npm takes as the project when run in dir: the nearest one,
// dir or above, that has a package.json or node_modules.
func npmProject(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		for _, name := range []string{"package.json", "node_modules"} {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// npmGlobalModules is the prefix under which npm keeps global packages: $npm_config_prefix,
// else the one of the Node installation npx belongs to (lib/node_modules under it; on
// Windows, node_modules beside it).
func npmGlobalModules() string {
	prefix := os.Getenv("npm_config_prefix")
	if prefix == "" {
		npx, err := exec.LookPath("npx")
		if err != nil {
			return ""
		}
		if real, err := filepath.EvalSymlinks(npx); err == nil && !strings.Contains(filepath.ToSlash(real), "/node_modules/npm/") {
			npx = real
		}
		prefix = filepath.Dir(filepath.Dir(npx))
		if runtime.GOOS == "windows" {
			return filepath.Dir(npx)
		}
	}
	if runtime.GOOS == "windows" {
		return prefix
	}
	return filepath.Join(prefix, "lib")
}

// uvxHas reports whether uvx would find spec without downloading it: installed as a uv
// tool, or in an environment uv keeps in its cache.
func uvxHas(spec string) bool {
	name, version := registry.PackageName(spec), registry.PackageVersion(spec)
	norm := strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(name))
	if tools := uvDir("UV_TOOL_DIR", "XDG_DATA_HOME", filepath.Join(".local", "share"), "tools"); tools != "" {
		if _, err := os.Stat(filepath.Join(tools, name)); err == nil && version == "" {
			return true
		}
		if hasDistInfo(filepath.Join(tools, name), norm, version) {
			return true
		}
	}
	cache := uvDir("UV_CACHE_DIR", "XDG_CACHE_HOME", ".cache", "")
	if cache == "" {
		return false
	}
	envs, _ := filepath.Glob(filepath.Join(cache, "archive-v0", "*"))
	for _, env := range envs {
		if hasDistInfo(env, norm, version) {
			return true
		}
	}
	return false
}

// hasDistInfo reports whether the Python environment env has the package installed (its
// .dist-info folder), at version when one is given.
func hasDistInfo(env, norm, version string) bool {
	v := "*"
	if version != "" {
		v = version
	}
	for _, lib := range []string{filepath.Join("lib", "python*", "site-packages"), filepath.Join("Lib", "site-packages")} {
		if found, _ := filepath.Glob(filepath.Join(env, lib, norm+"-"+v+".dist-info")); len(found) > 0 {
			return true
		}
	}
	return false
}

// uvDir is one of uv's folders: $override, else under $xdg (or ~/fallback) in uv/, then
// sub.
func uvDir(override, xdg, fallback, sub string) string {
	if dir := os.Getenv(override); dir != "" {
		return dir
	}
	base := os.Getenv(xdg)
	if base == "" {
		if runtime.GOOS == "windows" {
			base = os.Getenv("LOCALAPPDATA")
		} else if home, err := os.UserHomeDir(); err == nil {
			base = filepath.Join(home, fallback)
		}
	}
	if base == "" {
		return ""
	}
	if sub == "" && runtime.GOOS == "windows" {
		return filepath.Join(base, "uv", "cache")
	}
	return filepath.Join(base, "uv", sub)
}
