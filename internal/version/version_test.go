package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d"}}
	tests := []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: rev}, "v1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101000000-1a2b3c4d5e6f+dirty"}}, "v0.0.0-20260101000000-1a2b3c4d5e6f+dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "devel 1a2b3c4d5e6f"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, "devel 1a2b3c4d5e6f-dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
	}
	for _, tt := range tests {
		if got := fromBuildInfo(&tt.info); got != tt.want {
			t.Errorf("fromBuildInfo(%+v) = %q, want %q", tt.info.Main, got, tt.want)
		}
	}
}

// TestStampedReleaseWins: a version stamped at link time is the version, whatever the
// build information says (a release built from a checkout has "(devel)" there).
func TestStampedReleaseWins(t *testing.T) {
	defer func(old string) { release = old }(release)
	release = "v1.2.3"
	if got := String(); got != "v1.2.3" {
		t.Errorf("String() = %q with release stamped v1.2.3", got)
	}
	release = ""
	if got := String(); got != fromBinary() {
		t.Errorf("String() = %q unstamped, want the build information's %q", got, fromBinary())
	}
}
