// Package version says which parley this is, from the build information Go records in
// every binary: the module version of a release (go install …/cmd/parley@v1.2.3), or the
// commit of a build from a checkout (when Go stamped it: -buildvcs). Nothing needs to set
// anything at build time.
package version

import (
	"runtime/debug"
	"sync"
)

// String is parley's version: "v1.2.3", "devel 1a2b3c4d5e6f" (a checkout, "-dirty" when it
// had uncommitted changes), or "devel".
func String() string { return fromBinary() }

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
