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
