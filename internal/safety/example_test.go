package safety_test

import (
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/safety"
)

func ExampleAnalyze() {
	ctx := safety.Context{Workspace: []string{"/code/proj"}, Home: "/home/u"}
	for _, line := range []string{
		"go vet ./...",
		"go test ./...",
		"rm -f build.log",
		"timeout 60 git -C . push --force",
		`bash -lc "rm -rf ~"`,
	} {
		a := safety.Analyze(line, ctx)
		fmt.Printf("%s: %s (%s)\n", line, a.Tier, a.Reason())
		if len(a.CodeFiles) > 0 {
			fmt.Printf("  no always allow: it runs %s\n", strings.Join(a.CodeFiles, ", "))
			continue
		}
		fmt.Printf("  always allow: %s\n", a.Shape().Describe())
	}
	// Output:
	// go vet ./...: none ()
	//   always allow: `go vet ./...` and the same command with other files in the workspace
	// go test ./...: medium (builds and runs the package's tests (go test), code the agent can change)
	//   no always allow: it runs the package's tests
	// rm -f build.log: medium (deletes build.log)
	//   always allow: exactly `rm -f build.log`
	// timeout 60 git -C . push --force: high (force-pushes, which can overwrite commits on the remote (git push --force))
	//   always allow: exactly `timeout 60 git -C . push --force`
	// bash -lc "rm -rf ~": critical (deletes ~ (/home/u, outside the workspace) and everything in it)
	//   always allow: exactly `bash -lc 'rm -rf ~'`
}
