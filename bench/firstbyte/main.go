// Command firstbyte measures how long a command takes to print its first byte on stdout,
// over repeated runs: the latency a user of `parley run` feels before the reply starts.
//
//	go build -o bin/parley ./cmd/parley
//	go run ./bench/firstbyte -n 50 -- bin/parley run --agent eliza "I am worried about my tests"
//
// It prints the median, the 90th percentile and the fastest run, and the same for the
// whole run, so the two can be compared.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"time"
)

func main() {
	n := flag.Int("n", 30, "runs")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: firstbyte [-n runs] -- command args...")
		os.Exit(2)
	}
	var first, total []time.Duration
	for range *n {
		f, t, err := measure(args)
		if err != nil {
			fmt.Fprintln(os.Stderr, "firstbyte:", err)
			os.Exit(1)
		}
		first, total = append(first, f), append(total, t)
	}
	report("first byte", first)
	report("whole run ", total)
}

func measure(args []string) (first, total time.Duration, err error) {
	cmd := exec.Command(args[0], args[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	buf := make([]byte, 1)
	if _, err := io.ReadFull(out, buf); err != nil {
		return 0, 0, fmt.Errorf("no output: %w", err)
	}
	first = time.Since(start)
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return 0, 0, err
	}
	return first, time.Since(start), nil
}

func report(what string, d []time.Duration) {
	slices.Sort(d)
	ms := func(x time.Duration) string { return fmt.Sprintf("%.1f ms", float64(x)/float64(time.Millisecond)) }
	fmt.Printf("%s: median %s, p90 %s, fastest %s (%d runs)\n", what, ms(d[len(d)/2]), ms(d[len(d)*9/10]), ms(d[0]), len(d))
}
