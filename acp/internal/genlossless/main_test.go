package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedCodeIsCurrent fails when a type changed without go generate being rerun.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	want, err := generate("../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../" + output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./acp", output)
	}
}
