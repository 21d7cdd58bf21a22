package cli

import "testing"

func TestHostGCPercentReachesTheFloorThenGoesBackToGos(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 400},       // not yet known: the runtime's minimum (4 MiB x 4) is the floor
		{1 << 20, 400}, // the minimum decides
		{4 << 20, 300}, // 4 MiB live: the next collection at 16 MiB
		{6 << 20, 166},
		{8 << 20, 100}, // half the floor live: Go's default from here
		{1 << 30, 100},
	} {
		if got := hostGCPercent(c.live); got != c.want {
			t.Errorf("hostGCPercent(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}
