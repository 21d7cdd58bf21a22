package proc

import (
	"sync"
	"unicode/utf8"
)

// Output keeps the first head and the last tail bytes written to it and counts the bytes
// dropped between them, in memory bounded by head+tail whatever is written (the tail is a
// ring). Safe for concurrent use; give the same Output as a command's Stdout and Stderr
// to keep them interleaved as written.
type Output struct {
	headLimit, tailLimit int

	mu      sync.Mutex
	head    []byte
	ring    []byte // the tail; once len(ring) == tailLimit, it wraps at next
	next    int
	dropped int64
}

// NewOutput keeps the first head and the last tail bytes.
func NewOutput(head, tail int) *Output {
	return &Output{headLimit: max(head, 0), tailLimit: max(tail, 0)}
}

func (o *Output) Write(p []byte) (int, error) {
	n := len(p)
	o.mu.Lock()
	defer o.mu.Unlock()
	if room := o.headLimit - len(o.head); room > 0 {
		k := min(room, len(p))
		o.head = append(o.head, p[:k]...)
		p = p[k:]
	}
	o.writeTail(p)
	return n, nil
}

func (o *Output) writeTail(p []byte) {
	if len(p) >= o.tailLimit { // p alone fills the tail
		o.dropped += int64(len(o.ring) + len(p) - o.tailLimit)
		o.grow(o.tailLimit)
		o.ring = append(o.ring[:0], p[len(p)-o.tailLimit:]...)
		o.next = 0
		return
	}
	if fill := min(o.tailLimit-len(o.ring), len(p)); fill > 0 {
		o.grow(len(o.ring) + fill)
		o.ring = append(o.ring, p[:fill]...)
		p = p[fill:]
	}
	o.dropped += int64(len(p))
	for len(p) > 0 {
		c := copy(o.ring[o.next:], p)
		p = p[c:]
		o.next = (o.next + c) % o.tailLimit
	}
}

// grow makes room for n bytes in the ring, never beyond tailLimit.
func (o *Output) grow(n int) {
	if n <= cap(o.ring) {
		return
	}
	c := min(max(2*cap(o.ring), n, 512), o.tailLimit)
	ring := make([]byte, len(o.ring), c)
	copy(ring, o.ring)
	o.ring = ring
}

// Snapshot returns copies of the head and the tail, and how many bytes were dropped
// between them. When bytes were dropped, the tail starts at a UTF-8 character start (the
// rest of a cut character counts as dropped). Until final, a character whose last bytes
// have not arrived yet is held back from the end of the tail rather than given broken.
func (o *Output) Snapshot(final bool) (head, tail []byte, dropped int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	head = append([]byte(nil), o.head...)
	tail = make([]byte, 0, len(o.ring))
	if len(o.ring) == o.tailLimit {
		tail = append(append(tail, o.ring[o.next:]...), o.ring[:o.next]...)
	} else {
		tail = append(tail, o.ring...)
	}
	dropped = o.dropped
	if dropped > 0 {
		for i := 0; i < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
			tail = tail[1:]
			dropped++
		}
	}
	if !final {
		tail = tail[:len(tail)-incompleteTail(tail)]
	}
	return head, tail, dropped
}

// incompleteTail is the length of the unfinished character at the end of p, if any.
func incompleteTail(p []byte) int {
	for i := 1; i < utf8.UTFMax && i <= len(p); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}
