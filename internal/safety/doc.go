// Package safety is parley's one judge of shell commands and of sensitive files: how
// risky a command is before it runs, which commands it really runs, what an "always"
// answer about it may cover, and which files need a question before they are edited.
// The coding agent (its approvals) and the ACP client host (its permission rules) both
// use it, so a command is parsed and judged in this one place.
//
// # Commands
//
// Analyze parses a command line with mvdan.cc/sh (Bash) and judges every simple command
// that can run: those in pipelines, &&/||/; lists, subshells, $(...) and backticks,
// process substitutions, functions, loops and conditionals, and those hidden in
// strings that another program runs as code: sh/bash -c and -lc, eval, su -c, env -S,
// watch, xargs, find -exec, heredocs and here-strings fed to a shell. Wrappers (env,
// command, builtin, exec, sudo, doas, timeout, nice, nohup, stdbuf, time, ionice,
// setsid, chrt, taskset, flock, xargs) are stripped so the program they start is judged
// (and matched by permission rules) as itself. AnalyzeArgv does the same for an argument
// vector run without a shell (ACP terminal/create).
//
// Each finding has a Tier and a reason a user can read; the analysis has the highest
// tier of its findings:
//
//   - Critical: cannot be undone and reaches beyond the workspace or the machine's
//     health: recursive deletes of /, ~, the workspace or anything outside it,
//     --no-preserve-root, writes to block devices, mkfs, shutdown, fork bombs, a script
//     downloaded and run (curl … | sh in its spellings), killing every process. Critical
//     always asks, whatever the auto-approve settings, --yolo or remembered decisions.
//   - High: dangerous but bounded: recursive deletes inside the workspace, writes or
//     deletes outside it, privilege (sudo), force pushes, publishing packages, killing
//     processes, chmod 777, git configuration that runs programs, commands only known
//     when they run (variables in command position, eval of a substitution), text piped
//     into a shell, a command that cannot be parsed.
//   - Medium: changes things inside the workspace or the machine in ways that can be
//     undone or are routine: deletes of single files, redirections into files, installs,
//     commits, pushes, network access, unknown programs.
//   - None: reads and the project's own builds and tests (ls, cat, grep, git status,
//     go test ./...).
//
// Words that are not literals are judged by what they could be: a variable, a command
// substitution or a glob that could reach outside the workspace counts as reaching
// outside it. Paths are judged lexically against the workspace roots (no file is
// looked at): confinement of what actually runs is not this package's job.
//
// # Shapes: what an "always" answer covers
//
// A Shape is the key an "always allow" or "always reject" decision is stored under.
// The rule:
//
//   - A command of tier None whose file arguments are all plain paths inside the
//     workspace is remembered with those arguments open: "always allow `cat README.md`"
//     covers `cat` with the same flags and any other files in the workspace, and
//     nothing else (not other flags, not files outside the workspace, not a pipe).
//   - Every other command is remembered exactly: the same words in the same order, up
//     to quoting and spacing. "always allow `rm -f build.log`" covers only that.
//   - The tier is part of the key: a command only matches a decision made at the same
//     tier, so nothing rated higher than what the user approved (for example the same
//     words run from another directory, where they reach outside the workspace) is ever
//     covered. Callers never let a remembered allow cover a Critical command.
//
// Shape.Describe gives the rule as words for the question ("`cat README.md` and the same
// command with other files in the workspace").
//
// # Sensitive files
//
// FileRules lists glob patterns with an action, "ask" or "allow", matched
// case-insensitively against a path (relative to the workspace root; dotfiles
// included) with github.com/bmatcuk/doublestar; the last matching rule wins and no
// match means "allow". DefaultFileRules asks about environment files, keys and
// certificates, lockfiles and manifests, CI workflows, editor and agent settings and
// git internals; a user's rules are added after them, so one can loosen or tighten
// any of them in plain words.
package safety
