package proc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOutputTail(t *testing.T) {
	text := strings.Repeat("aé€😀", 50) // characters of 1 to 4 bytes
	for limit := range 40 {
		o := NewOutput(0, limit)
		for i := range len(text) { // a byte at a time: every character is split
			o.Write([]byte{text[i]})
			_, tail, dropped := o.Snapshot(false)
			got := string(tail)
			// A character still arriving is held back: got ends at most 3 bytes early.
			suffix := false
			for held := 0; held < utf8.UTFMax && held <= i+1; held++ {
				suffix = suffix || strings.HasSuffix(text[:i+1-held], got)
			}
			if !utf8.ValidString(got) || !suffix || len(got) > limit {
				t.Fatalf("limit %d after %d bytes: %q is not a valid suffix of the output", limit, i+1, got)
			}
			if (dropped > 0) != (i+1 > limit) {
				t.Fatalf("limit %d after %d bytes: dropped = %d", limit, i+1, dropped)
			}
		}
		_, tail, dropped := o.Snapshot(true)
		if len(tail) < limit-3 || !strings.HasSuffix(text, string(tail)) || int(dropped)+len(tail) != len(text) {
			t.Errorf("limit %d: kept %q, dropped %d", limit, tail, dropped)
		}
	}
}

func TestOutputHeadAndTail(t *testing.T) {
	var all bytes.Buffer
	o := NewOutput(10, 20)
	for i := range 1000 {
		chunk := fmt.Sprintf("%d,", i)
		if i%97 == 0 {
			chunk = strings.Repeat("x", 45) // longer than the tail at once
		}
		all.WriteString(chunk)
		o.Write([]byte(chunk))
	}
	head, tail, dropped := o.Snapshot(true)
	want := all.Bytes()
	if !bytes.Equal(head, want[:10]) || !bytes.Equal(tail, want[len(want)-20:]) || dropped != int64(len(want)-30) {
		t.Errorf("head %q, tail %q, dropped %d; want %q, %q, %d", head, tail, dropped, want[:10], want[len(want)-20:], len(want)-30)
	}
}

// TestOutputMemoryIsBounded: however much is written, the ring never grows past its limit.
func TestOutputMemoryIsBounded(t *testing.T) {
	o := NewOutput(0, 1000)
	chunk := bytes.Repeat([]byte("y"), 333)
	for range 10000 {
		o.Write(chunk)
	}
	if c := cap(o.ring); c > 1000 {
		t.Errorf("the tail's capacity is %d bytes for a limit of 1000", c)
	}
}
