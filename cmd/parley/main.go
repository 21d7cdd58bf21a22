// Command parley connects ACP coding agents with the editors and terminals that want to
// use them. See `parley --help`.
package main

import (
	"os"

	"github.com/parley-acp/parley/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
