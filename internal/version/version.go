// Package version says which parley this is. A release build stamps its version at link
// time (GoReleaser and the VS Code extension's packaging pass
// -ldflags "-X github.com/parley-acp/parley/internal/version.release=v1.2.3"); any other
// build takes it from the build information Go records in every binary: the module
// version of `go install …/cmd/parley@v1.2.3`, or the commit of a build from a checkout
// (when Go stamped it: -buildvcs).
package version

import (
	"runtime/debug"
	"sync"
)

// release is the version a release build stamps with -X; empty in any other build. It is
// a variable the linker sets, so it must stay an uninitialised package-level string.
var release string

// String is parley's version: "v1.2.3" (a release, or go install of a tagged version),
// "devel 1a2b3c4d5e6f" (a checkout, "-dirty" when it had uncommitted changes), or "devel".
func String() string {
	if release != "" {
		return release
	}
	return fromBinary()
}

var fromBinary = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return fromBuildInfo(info)
})

func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return "devel"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified == "true" {
		revision += "-dirty"
	}
	return "devel " + revision
}
