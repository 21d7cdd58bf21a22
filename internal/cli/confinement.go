package cli

import (
	"log/slog"
	"runtime"

	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/spf13/cobra"
)

// Confinement of commands is Linux's (Landlock) and macOS's (Seatbelt). Elsewhere --help says so, and so does
// the log when a command starts that would have confined them. Each text is a function
// of whether this platform confines (sandbox.Supported) and its name, so that the texts
// of every platform are tested on any.

// platformName is this platform as people call it.
func platformName() string {
	switch runtime.GOOS {
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	return runtime.GOOS
}

// sandboxFlagHelp is --sandbox's help; what is the commands it applies to.
func sandboxFlagHelp(what string) string {
	return sandboxFlagHelpFor(sandbox.Supported, platformName(), what)
}

func sandboxFlagHelpFor(supported bool, platform, what string) string {
	if supported && platform == "macOS" {
		return "confine " + what + " with Seatbelt, macOS's sandbox-exec (a `MODE`): auto or off"
	}
	if !supported {
		return "confine " + what + " with Landlock, which is Linux's: on " + platform + " they are never confined (a `MODE`: auto is the same as off)"
	}
	return "confine " + what + " with Landlock (a `MODE`): auto (where the kernel offers it) or off"
}

// unconfinedHelp is a paragraph for --help where commands cannot be confined, "" where
// they can.
func unconfinedHelp() string { return unconfinedHelpFor(sandbox.Supported, platformName()) }

func unconfinedHelpFor(supported bool, platform string) string {
	if supported {
		return ""
	}
	return "\n\nOn " + platform + ` the agent and the commands it runs (itself or through parley) are not
confined: Landlock, which confines them on Linux, is Linux's, so they can write and read
wherever you can, your secrets included, and connect anywhere. What parley still holds:
the agent's file requests (fs/*) reach only the workspace, the commands it runs through
parley are judged and asked about first, and the record of changes sees what changed
in the workspace. --sandbox-net is not enforced either.`
}

// warnUnconfined says in the log, as a command that would confine commands (--sandbox
// auto) starts, that this platform does not.
func warnUnconfined(logger *slog.Logger, mode string) {
	warnUnconfinedFor(sandbox.Supported, platformName(), logger, mode)
}

func warnUnconfinedFor(supported bool, platform string, logger *slog.Logger, mode string) {
	if supported || mode != "auto" {
		return
	}
	logger.Warn("the agent and the commands it runs are not confined on " + platform +
		" (Landlock is Linux's): they can write and read wherever you can, and only the permission questions guard the commands that pass through parley; --sandbox off says you know")
}

// registerSandboxFlags are the confinement flags of every subcommand that starts agents.
func registerSandboxFlags(cmd *cobra.Command, mode *string, write, read, net *[]string) {
	cmd.Flags().StringVar(mode, "sandbox", "auto", sandboxFlagHelp("the agent, the commands it runs itself and those it runs in parley's terminals"))
	cmd.Flags().StringArrayVar(write, "sandbox-write", nil, "a further file or directory `PATH` the agent and its commands may write (repeatable)")
	cmd.Flags().StringArrayVar(read, "sandbox-read", nil, "one of your secrets (`PATH`, e.g. ~/.aws) the agent may read after all (repeatable)")
	cmd.Flags().StringArrayVar(net, "sandbox-net", nil, "the only destination `HOST:PORT` the agent and its commands may connect to (repeatable; Landlock limits the port: every host on it)")
}
