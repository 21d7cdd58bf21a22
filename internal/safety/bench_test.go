package safety

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkAnalyze judges every command of the table once per iteration; ns/op is for
// the whole table.
func BenchmarkAnalyze(b *testing.B) {
	cases := readTable(b)
	for b.Loop() {
		for _, c := range cases {
			Analyze(c.command, tableContext)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cases)), "ns/cmd")
}

// BenchmarkAnalyzePercentiles reports the time one command takes, p50 and p99 over the
// table (each command timed on its own, every iteration).
func BenchmarkAnalyzePercentiles(b *testing.B) {
	cases := readTable(b)
	var samples []time.Duration
	for b.Loop() {
		for _, c := range cases {
			start := time.Now()
			Analyze(c.command, tableContext)
			samples = append(samples, time.Since(start))
		}
	}
	slices.Sort(samples)
	at := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)-1))].Nanoseconds()) }
	b.ReportMetric(at(0.50), "p50-ns/cmd")
	b.ReportMetric(at(0.99), "p99-ns/cmd")
}
