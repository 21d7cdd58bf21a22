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
// watch, xargs, find -exec, heredocs and here-strings fed to a shell, what echo prints
// into a shell. Wrappers (env, command, builtin, exec, sudo, doas, timeout, nice, nohup,
// stdbuf, time, ionice, setsid, chrt, taskset, flock, xargs, script, systemd-run,
// chroot, unshare, strace…) are stripped so the program they start is judged (and
// matched by permission rules) as itself. AnalyzeArgv does the same for an argument
// vector run without a shell (ACP terminal/create).
//
// # The rule
//
// "No question needed" is earned, never assumed. A command is tier None only when every
// program in it is known (plainTable and the judges of programs.go), is given only
// options on that program's list of options known to run no code and to write nothing
// but what the command names (an option not on the list, an abbreviation, a word only
// known when it runs that may be an option: Medium), and reads no code the agent could
// have written. Everything else is at least Medium:
//
//   - Programs that run the project's code: builds, tests, package scripts, makefiles,
//     scripts, python -m, sed -f and awk -f scripts, a program from the workspace. The
//     agent changes that code with an ordinary edit, so an "always" cannot bind what
//     runs: Analysis.CodeFiles names it, and no caller offers "always allow" for it.
//   - Programs that run code given to them (sh -c, eval, python -c, perl -e, make --eval,
//     sed's e, awk's system(), dc's !, sqlite3's .shell, git settings that name commands,
//     environment variables that hold commands…): the code is judged as what it is. Shell
//     code is parsed and each command judged; code in another language is judged by the
//     calls it makes (inline.go): a literal command it runs is judged as shell code, a
//     literal path it deletes like rm's operand.
//   - Programs that write through an option or an operand (iconv -o, openssl -out, cc -o,
//     sort -o, tee, dd of=, curl -o, wget -O, tar -C … -x, uniq and xxd's output operand,
//     pip --log, npm --logs-dir, git --output, a test runner's report): the written path
//     is judged like a redirection (Medium inside the workspace, High for a sensitive
//     file or outside it, Critical for a device or a system file). The option tables
//     (opts) mark such options by kind: writes, reads, runs (a program, judged as the
//     command it is) and config (settings that can name programs), abbreviations
//     included; a query (pip list, npm ls, docker ps, git stash list) is None only with
//     options its table lists.
//   - Bash features that run code found in data: arithmetic (a[$(…)] in a value runs),
//     ${x@P}, ${!x}, names given to declare, printf -v, read, unset and test -v, mapfile's
//     callback. Text Bash evaluates as arithmetic (let, (( )), subscripts, offsets, the
//     values of -i variables, nameref targets…) that holds a $ or a backquote once its
//     quotes are removed is code however it was quoted (let "a[\$(…)]=1"): at least
//     High, with the commands in it judged (arithmetic.go); and whatever rebinds a name: alias, a function named like a program,
//     enable, hash -p, PATH, BASH_FUNC_ variables. A function defined in the line is
//     judged at each call with "$@" bound to the call's words.
//
// Code the judge cannot see is Critical wherever it could reach the workspace or beyond,
// so that no setting runs it unasked: shell code only known when it runs (eval "$X",
// sh -c "$X", code another program prints into a shell), code in another language that
// builds names or code when it runs (eval, getattr, reflection) or starts a program or
// deletes a path only known when it runs, a sed or awk program only known when it runs.
// Recursive deletes of the workspace, its parent or home are Critical through any
// wrapper: those parley knows (env, sudo, timeout, xargs, script -c, tmux, screen,
// systemd-run, chroot, ssh, uv run, npx -c, docker run with the workspace mounted, git -C
// .. clean, find -delete, rsync --delete, cmake -E…) are unwrapped; a program parley does
// not know has its arguments judged as the command they would be (mywrapper rm -rf ~).
//
// Each finding has a Tier and a reason a user can read; the analysis has the highest
// tier of its findings:
//
//   - Critical: cannot be undone and reaches beyond the workspace or the machine's
//     health, or cannot be seen: recursive deletes of /, ~, the workspace or anything
//     outside it, writes to block devices and system files, mkfs, shutdown, fork bombs, a
//     script downloaded and run, code only known when it runs. Critical always asks,
//     whatever the auto-approve settings, --yolo or remembered decisions.
//   - High: dangerous but bounded: recursive deletes inside the workspace, writes or
//     deletes outside it, privilege (sudo), force pushes, publishing packages, killing
//     processes, chmod 777, options that run a program of the command's choice, programs
//     only known when they run, commands handed to a server parley did not start, a
//     command that cannot be parsed.
//   - Medium: changes inside the workspace, routine changes, the project's own code,
//     network access, programs and options parley does not know.
//   - None: reads, and builds that run none of the project's code (ls, cat, grep -rn,
//     git log, go build, go vet).
//
// CLASSES.md lists the classes of commands, an example of each, the tier chosen and why;
// TestClasses checks every row. What stays out of reach is said there and in docs/permissions.md:
// the judge reads the line, not the files it names, so what a script, a makefile or a
// test does is the sandbox's to confine, not the judge's; code in a language parley does
// not parse is judged by the words it uses, which a determined obfuscation can avoid
// (it is then Medium or High, never None).
//
// Words that are not literals are judged by what they could be: a variable, a command
// substitution or a glob that could reach outside the workspace counts as reaching
// outside it. Paths are judged lexically against the workspace roots (no file is
// looked at): confinement of what actually runs is not this package's job.
//
// # Run-time spellings
//
// Command.RunTime marks a command whose program, subcommand or code is only known when
// it runs: a variable in the program's place, shell code in a variable, a git subcommand
// that may be an alias or an extension (git p), arguments read from the input (xargs).
// A permission rule that refuses or asks about some command must assume it could be
// this one: the permission policy asks.
//
// # Shapes: what an "always" answer covers
//
// A Shape is the key an "always allow" or "always reject" decision is stored under.
// The rule:
//
//   - A command that runs code from files the agent can change (Analysis.CodeFiles) is
//     never remembered as allowed: the same words may run other code next time.
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
