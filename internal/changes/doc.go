// Package changes is the record of what agents change in a workspace, turn by turn, so
// that a person can review it and undo it, whichever agent made the change and however
// (written through parley, or by the agent's own tools and commands on disk).
//
// # Snapshots
//
// At the start and at the end of each turn the workspace is compared with its last
// snapshot. The files compared are those git would not ignore (internal/filelist: `git
// ls-files -co --exclude-standard` inside a git work tree, a walk honouring the
// .gitignore files elsewhere; parley's own directories are left out, symbolic links and
// special files are not followed). A file whose size, modification and change times,
// inode and mode are what the last snapshot saw is not read; the others are read and
// hashed (SHA-256), and a file that changed less than a second before a snapshot is read
// again by the next one (a later change within the file system's clock tick could keep
// its times). In a git work tree, a file new to the record whose stat is what git's index
// recorded (the test `git status` makes) is not read either: git vouches for it, and what
// it holds is git's object, read from git's object store when a turn changes or deletes
// it (gitindex.go says when git is not trusted: a file git would convert, an entry git
// does not check, a racily clean one). That is what a process's first snapshot of a
// large work tree mostly is. What changed between the start and the end of a turn is the
// turn's; what changed between turns is not (a hand edit, another tool) and only updates
// the snapshot.
//
// What is ignored is decided when a turn begins, not by what the turn writes: an agent
// that adds *.sh to .gitignore (or to .git/info/exclude, an excludes file, the global
// one) and rewrites build.sh, or that runs `git init` in a directory, must not hide that
// from the turn's review. So while turns run, every file the record followed when they
// began is compared whatever the rules say at the end; and the snapshot that begins a
// turn also keeps what git ignored then (`git ls-files -oi --directory`) and the rules
// themselves (filelist.Rules: the excludes file, info/exclude, the .gitignore files), so
// that the one that ends it finds what became hidden since: a file ignored now that was
// not, the files under a directory ignored now that was not, or that became a repository
// of its own, each judged by the rules of the start (and, in a directory the turn itself
// created, by that directory's own .gitignore, which is listed: a virtualenv's "*", a new
// crate's target/). A file the turn un-ignores is listed too: showing more hides nothing.
// That costs a second listing by git at each listing, run beside the first. A listing is
// reused by the next snapshots (whether they begin a turn or not: a first turn's start
// reuses what Prepare listed), its files stat'ed afresh by a worker per core, while
// everything it depends on (the directories it shows, their .gitignore files, git's
// index, configuration and excludes) is as it was (reuse.go says why that misses
// nothing): a turn that creates
// and deletes nothing runs no git at either end (BenchmarkQuietTurn). Such a turn's
// start is then taken while its prompt is on its way (late.go): BeginTurn only proves
// the kept listings current, and a change found after is the turn's when its change
// time is within racyWindow of the turn's start or later (late.go says what that gives
// up: a hand edit made in that second before the prompt is shown as the turn's). Each side of
// a change has its permission bits: `chmod +x` alone is a change (shown as a mode
// change), and an undo restores the mode.
//
// Inside .git, only what makes git run a program later is followed: the configuration
// (config, config.worktree), info/attributes and info/exclude, the hooks (not the
// .sample ones), and the hooks of a core.hooksPath inside the workspace, of the
// workspace's repository and of those inside it. Their changes, and .gitattributes files
// that give files a filter or diff driver, are flagged (Change.RunsCode: "sets
// core.fsmonitor", "a git hook"), since the user's next `git status` would run them.
//
// The snapshot lives in parley's SQLite database (internal/store): per workspace, a row
// per file (path, size, times, inode, mode, kind, hash), and the content of its text
// files, kept once per hash. That copy is what an undo restores from, and what a diff
// is made from: the content a turn replaced must have been kept before the turn, since
// nothing else holds it once the agent has overwritten it. A file git vouched for has no
// row and nothing kept: git's object store holds what it was, by the object id the entry
// keeps in memory, and the snapshot that finds a turn changed it copies that content into
// the database (as if it had been kept: a diff and an undo do not know the difference);
// a later process asks git's index again. Limits bound it: a file larger than
// Limits.MaxFileBytes (1 MiB) is recorded by its size and times only, a
// binary file (a NUL byte in its first 8000 bytes) and a file with other names (hard
// links, whose other names may be outside the workspace) by hash only, and the first
// snapshot keeps content until three quarters of Limits.MaxBytes (256 MiB per workspace)
// are used, the later files by hash. A change of such a file is listed and says why its
// content is not kept; undoing it is refused, except deleting a file the turn created.
// Past Limits.MaxBytes the oldest turns expire (never the newest); turns older than
// Limits.MaxAge (30 days) are forgotten, and workspaces not used for as long with all
// they kept. A workspace with more than Limits.MaxFiles (100,000) files is not followed.
//
// Why this and not a shadow git object store (`git --git-dir=SHADOW --work-tree=WS add
// -A` at each snapshot): git keeps each file as a loose object, a compressed file of its
// own, and creating 50,000 small files costs far more than storing 50,000 rows. Measured
// one after the other on the same 50,000-file tree (500 directories of 100 files of
// about 1.3 KB, a plain directory, this machine loaded): the shadow git's first snapshot
// took 11.9 s and a later one (add -A, write-tree, one file changed) 0.26 to 0.42 s; this
// package's first took 3.2 s and a later one 0.30 to 0.61 s. Where the workspace is a git
// work tree, its own repository already is that object store, at no cost: the record
// only reads from it. Comparing by metadata also needs no watcher (inotify's watch per
// directory runs out on large trees, and misses what happened while parley was not
// running).
//
// BenchmarkSnapshot and BenchmarkSnapshotGit (bench_test.go) measure both snapshots on
// such a tree built in a temporary directory (older than racyWindow, as a workspace in
// use is), each with its ratio to baselines measured just before each snapshot on the
// same tree (a walk that lstats every file; in a git work tree, `git status` too):
//
//	go test -run '^$' -bench BenchmarkSnapshotGit -benchtime 3x -count 5 ./internal/changes/
//
// On this project's 2-core machine, shared with other work (load average 7 to 10), the
// median of 5 (the code before, in the same session, in brackets):
//
//	                   first snapshot                 later (10 files changed)
//	git work tree      0.34 s = 2.5 × git status      0.13 s = 1.36 × git status
//	                   (2.8 s = 18.1 × git status)    (0.36 s = 2.04 × git status)
//
// A first snapshot in a git work tree costs a listing by git (what is ignored listed
// beside it), an lstat per file, and git's index read beside the listing; before files
// were vouched for, every file was read, hashed and stored, over half of it SQLite
// storing 65 MB in 50,000 rows (outside a git work tree it still is). A later one costs
// a few dozen lstats proving the kept listing current, an lstat per file on both cores,
// and the reading of what changed; before, each ran git to list, and the lstat of each
// file was on one core.
//
// # Turns
//
// A Record is one conversation's record (a Log hands them out, one per conversation,
// and shares a tracker per workspace among the conversations of one process). BeginTurn
// takes the snapshot that starts a turn; EndTurn the one that ends it, and returns the
// Turn: each file created, changed or deleted (A, M, D), its lines added and removed,
// whether the agent wrote it through parley, and what the record keeps of it. Write
// checkpoints a write the agent asks of parley (fs/write_text_file): what the file holds
// is recorded before the write, and if that fails nothing is written. Every change a
// snapshot finds goes to every turn running in the workspace: two conversations whose
// turns overlap in one workspace cannot be told apart by looking at the disk (only
// their writes through parley can).
//
// # Review, undo and keep
//
// Turns lists a conversation's turns and undos; Diff gives a file's unified diff
// (internal/textdiff, on go-udiff) from before the turn to after it, or, with Since, from
// what the turn left to what the file holds now. Undo undoes a turn, some of its files,
// or every turn back to one (Rewind). It never overwrites a change made after the turn
// by someone else: when a file is no longer what the turn left (or a later turn changed
// it, or someone changed it between the turns a rewind goes back through, or what it was
// is not kept), nothing is undone, and a *ConflictError names each file and why, the
// file's Diff with Since showing how it changed. Undo writes only through Files: for a
// conversation, the workspace's confined access (internal/workspace), every file opened
// through an os.Root at the workspace root, so a directory swapped for a symlink since
// the turn cannot lead it outside. An undo is recorded as a turn of its own, so it can
// be undone in turn. Keep keeps changes: they can no longer be undone, and what they
// replaced is dropped from the database; the list stays until it is pruned.
//
// # Views
//
// The conversation core (internal/conversation) calls BeginTurn and EndTurn around each
// turn on its helper goroutines, routes the agent's fs/write_text_file through Write,
// and reports each turn's record as a TurnChanges event. A view (the terminal chat, the
// web chat, @parley in VS Code) asks the conversation for a turn's changes (Changes),
// the diff of a file (Diff), to undo a file, a turn or back to a turn (Undo), and to
// keep (Keep); undos and keeps go through the conversation's actor, which refuses them
// while a turn runs, and every view is told (Undone, Kept). `parley changes` and `parley
// undo` reach the record from the shell through Log.Open. parley's own agent keeps its
// record with Log.Agent: only what it writes, read and restored through the client's
// fs/* (so an editor sees the undo).
//
// # What the record cannot see
//
// Changes outside the workspace roots (an agent's command writing to $HOME or /tmp, the
// global git configuration and excludes file themselves, the .git directory of a linked
// worktree or submodule kept elsewhere); files git ignored when the turn began (build
// output, node_modules, .env when ignored) and files inside .git other than those above
// (its index, refs and objects: what git itself writes); symbolic links, directories
// themselves (an empty directory created or removed), permissions other than a regular
// file's mode bits; a workspace over Limits.MaxFiles files; for files over the limits,
// their content; and what a file git vouched for held when git no longer has its object
// by the time a turn changes the file (staged only, replaced in the index and pruned at
// once: `git add` then `git gc --prune=now`): the change is listed, not undoable. A
// change made while no turn runs is the user's, not the agent's (so an
// agent's background process that writes after its turn ended is not attributed to it,
// and its later changes are found only at the next turn). Two parley processes in one
// workspace each keep their own snapshot: one's turn may include the other's concurrent
// changes.
package changes
