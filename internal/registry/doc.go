// Package registry is parley's client of the ACP agent registry
// (https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json, or a mirror): it
// reads the registry's index, keeps a copy of it, and installs, updates and removes the
// agents it lists. internal/catalog makes the installed ones startable by their id.
//
// # The index
//
// Source is where the index comes from: an https URL, an http URL on the loopback
// interface (tests, a mirror behind a local proxy), or a file path. A URL's index is
// fetched at most once a day (Cache.MaxAge) with a timeout, and kept in parley's state
// directory: there, unlike the user's cache directory, the commands an agent runs cannot
// rewrite it (they may write the cache directory, and a rewritten index would make the
// next install run their program). When the registry cannot be reached, the kept copy is
// used and Loaded says how old it is. A file is read every time.
//
// # Installing
//
// An agent's distribution is one of:
//
//   - binary: an archive for this platform ("linux-x86_64", "darwin-aarch64"…; GOARCH
//     amd64 is x86_64, arm64 is aarch64). Its URL must be https (or http on the loopback
//     interface), redirects included, and the registry must give its sha256 (64 hex
//     digits; an entry with a malformed one is left out of the index): an archive without
//     one is refused before it is downloaded, unless Installer.AllowUnverified (parley
//     agents install --allow-unverified), which says so. It is downloaded into a temporary
//     file, its sha256 checked against the registry's before anything is unpacked, and
//     unpacked (.zip, .tar.gz, .tgz, .tar.bz2, .tbz2, or a raw executable) into a fresh
//     directory under parley's data directory, then renamed into place. Unpacking goes
//     through an os.Root on that directory and refuses the whole archive when a member's
//     name is absolute or climbs out, when a symbolic link points outside it (by its text,
//     and again once everything is unpacked, resolving the links it goes through), or when
//     a hard link names anything but a file unpacked before it: nothing is ever written
//     outside the directory, and a refused archive leaves nothing behind.
//   - npx, uvx: nothing is downloaded at install time; the agent is recorded as the
//     command that runs it (`npx --yes PACKAGE ARGS`, `uvx PACKAGE ARGS`; npx.cmd on
//     Windows), which fetches the package on its first start. A spec that pins no exact
//     version (no version, a range, a tag) is said at install: the runner fetches the
//     newest one then, which nobody has looked at; what is downloaded is the runner's
//     to check (npm checks the integrity hash its registry gives).
//
// The manifest's env is kept, except names that change how processes are found and
// started (PATH, HOME, LD_*, DYLD_*, NODE_*, NPM_*…): an agent must not be able to
// redirect the programs parley or the agent itself runs.
//
// Installed agents are recorded in installed.json in the same directory, rewritten whole
// (a temporary file renamed over it) on every change; an update installs the new version
// beside the old one and removes the old directory only once the record points at the new.
package registry
