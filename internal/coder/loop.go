package coder

import (
	"crypto/sha256"
	"encoding/hex"
)

// loopDetector spots a model that repeats itself: the same tool call with the same result
// more than loopRepeats times within the last loopWindow calls.
type loopDetector struct {
	recent []string
}

const (
	loopWindow  = 10
	loopRepeats = 3
)

// observe records one call and reports whether it makes a loop.
func (d *loopDetector) observe(tool string, args, result []byte) bool {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(args)
	h.Write([]byte{0})
	h.Write(result)
	sig := hex.EncodeToString(h.Sum(nil))
	d.recent = append(d.recent, sig)
	if len(d.recent) > loopWindow {
		d.recent = d.recent[len(d.recent)-loopWindow:]
	}
	n := 0
	for _, s := range d.recent {
		if s == sig {
			n++
		}
	}
	return n > loopRepeats
}
