// Command testprogress runs `go test -json` with the arguments it is given and says what
// is happening while it runs: a line when each package's tests start and one when they
// end, with their time; now and then, for a package that runs long, how far it got and
// which tests are running; and, for each test that fails, every line go test printed for
// it (its subtests' included), as soon as it fails. A package that fails outside any test
// (a build error, a panic, a timeout) gets its own output printed whole. It exits with go
// test's status. scripts/test runs the tests through it, so that a run of several minutes
// is not minutes of silence.
//
// With -v among the arguments every line go test prints is passed on as it comes.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// heartbeat is how long a package may run with nothing said before a line says how far
// it got.
const heartbeat = 30 * time.Second

func run(args []string, stdout, stderr io.Writer) int {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = stderr
	events, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintf(stderr, "testprogress: %v\n", err)
		return 1
	}
	// Ctrl-C reaches go test too (the same process group): it ends the tests and reports
	// what it has, which is then passed on, so this process only waits for it.
	signal.Notify(make(chan os.Signal, 1), os.Interrupt)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "testprogress: starting go test: %v\n", err)
		return 1
	}
	p := newProgress(stdout, verbose(args), time.Now)
	stop := make(chan struct{})
	ticks := time.NewTicker(heartbeat / 3)
	go func() {
		for {
			select {
			case <-stop:
				return
			case now := <-ticks.C:
				p.idle(now)
			}
		}
	}()
	readErr := p.read(events)
	close(stop)
	ticks.Stop()
	waitErr := cmd.Wait()
	p.summary()
	if readErr != nil {
		fmt.Fprintf(stderr, "testprogress: reading go test's output: %v\n", readErr)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(waitErr, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	case waitErr != nil:
		fmt.Fprintf(stderr, "testprogress: go test: %v\n", waitErr)
		return 1
	case readErr != nil:
		return 1
	}
	return 0
}

// verbose reports whether args ask go test for every line (-v).
func verbose(args []string) bool {
	for _, a := range args {
		switch a {
		case "-v", "--v", "-v=true", "--v=true", "-test.v", "-test.v=true":
			return true
		}
	}
	return false
}

// read feeds p with go test's JSON lines until r ends.
func (p *progress) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20) // a test may print a long line
	for sc.Scan() {
		p.line(sc.Bytes())
	}
	return sc.Err()
}
