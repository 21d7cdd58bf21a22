package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The commands that host an agent (chat, run, web, acp, vscodelm) keep their
// conversations in memory and allocate for every message they relay. With Go's default
// (a collection each time the heap has doubled, from 4 MiB) a bridge holding a few MiB
// collects every few thousand chunks of a streamed reply, and marks what it keeps each
// time: about a fifth of the bridge's CPU in BenchmarkBridgeChunks
// (internal/vscodelm/bench). So their heap may grow to hostHeapFloor before it is
// collected: while less than half of that is live, GOGC is set after each collection
// so that the next comes at hostHeapFloor; from there on it is Go's 100, and a heap
// that must stay bounded (TestHostileAgentMemoryIsBounded) is bounded as before.
const hostHeapFloor = 16 << 20

// tuneHostGC keeps the heap target at hostHeapFloor or more, unless GOGC was set: the
// user's choice stands. Once per process, however many commands run in it (tests).
var tuneHostGC = sync.OnceFunc(func() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var retune func(struct{})
	retune = func(struct{}) {
		metrics.Read(live)
		debug.SetGCPercent(hostGCPercent(live[0].Value.Uint64()))
		// The cleanup of an object nothing refers to runs after the collection that
		// finds it (one with a pointer, so that it is not a tiny allocation, batched).
		runtime.AddCleanup(&struct{ _ *byte }{}, retune, struct{}{})
	}
	retune(struct{}{})
})

// hostGCPercent is the GOGC that puts the next collection at hostHeapFloor with live
// bytes live (0 before the first collection). The runtime's target is the larger of
// live × (1 + GOGC/100) and its minimum, 4 MiB × GOGC/100: with little live the minimum
// decides, and GOGC 400 puts it at the floor.
func hostGCPercent(live uint64) int {
	const most = 100 * hostHeapFloor / (4 << 20)
	switch {
	case 2*live >= hostHeapFloor:
		return 100
	case live == 0:
		return most
	}
	return int(min(most, 100*(hostHeapFloor-live)/live))
}
