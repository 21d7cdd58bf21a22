#!/usr/bin/env bash
# The VS Code extension's whole check: installs what it needs (cached outside the repo,
# see install-e2e.sh), builds parley and the extension, runs the unit tests against the
# real binary, packages every .vsix (the universal one, the proposed-API flavour, and one
# per platform carrying parley: npm run package:all) and checks them (scripts/check-vsix.js),
# then runs the end-to-end tests in a real VS Code with those .vsix installed. Screenshots
# and timings go to $PARLEY_VSCODE_ARTIFACTS (default editors/vscode/test-output, which
# git ignores).
#
#   editors/vscode/scripts/ci.sh            everything
#   editors/vscode/scripts/ci.sh --unit     the unit tests and the .vsix files (no browser)
#   editors/vscode/scripts/ci.sh --e2e      the .vsix files and the end-to-end tests (after
#                                           ./scripts/test, which runs the unit tests)
#
# A platform whose parley does not build is reported with the compiler's reason; the
# other packages and the end-to-end tests still run, and the script fails at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$here"

unit_only=false e2e_only=false
case "${1:-}" in
  --unit) unit_only=true ;;
  --e2e) e2e_only=true ;;
  "") ;;
  *) echo "usage: $0 [--unit | --e2e]" >&2; exit 2 ;;
esac

phase() { echo "== vscode: $*"; phase_start=$(date +%s); }
took() { echo "   ($(( $(date +%s) - phase_start )) s)"; }

export PARLEY_VSCODE_ARTIFACTS=${PARLEY_VSCODE_ARTIFACTS:-$here/test-output}
mkdir -p "$PARLEY_VSCODE_ARTIFACTS"
work=$(mktemp -d "${TMPDIR:-/tmp}/parley-vscode-ci-XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! $unit_only; then
  phase "installs (Debian chromium, Node 24, code-server; cached)"
  eval "$("$here/scripts/install-e2e.sh")"
  export NODE24 CODE_SERVER CHROMIUM
  took
fi

phase "npm ci"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
took

phase "build parley and the extension"
export PARLEY_BIN=$work/parley
(cd "$repo" && go build -o "$PARLEY_BIN" ./cmd/parley)
npm run --silent compile
took

if ! $e2e_only; then
  phase "unit tests (Node's test runner, the real parley)"
  node out/test/unit/run.js
  took
fi

phase "package: universal, proposed flavour, one per platform (npm run package:all)"
failed_targets=""
node scripts/package.js >"$work/package.log" 2>&1 || { cat "$work/package.log"; exit 1; }
node scripts/package.js --proposed >"$work/package.log" 2>&1 || { cat "$work/package.log"; exit 1; }
if ! node scripts/package.js --all; then
  failed_targets=$(cd dist && for t in linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64; do [ -f "parley-$t.vsix" ] || printf '%s ' "$t"; done)
fi
node scripts/check-vsix.js
took

# The platform this machine is, in VS Code's names: its .vsix is the one the e2e installs.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) host=linux-x64 ;;
  Linux-aarch64) host=linux-arm64 ;;
  Darwin-x86_64) host=darwin-x64 ;;
  Darwin-arm64) host=darwin-arm64 ;;
  *) host=unknown ;;
esac
export PARLEY_VSIX=$here/dist/parley-$host.vsix
export PARLEY_VSIX_PROPOSED=$here/dist/parley-proposed.vsix

if ! $unit_only; then
  phase "end to end in a real VS Code (code-server + headless Chromium)"
  [ -f "$PARLEY_VSIX" ] || { echo "no $PARLEY_VSIX for the end-to-end tests (this machine is $host)"; exit 1; }
  node --test --test-concurrency=1 out/test/e2e/vscode.test.js out/test/e2e/chat.test.js
  took
  echo "   screenshots: $PARLEY_VSCODE_ARTIFACTS/screenshots"
fi

# Nothing may outlive the tests: no backend, no agent.
# (The platform .vsix's own parley runs from code-server's extensions folder.)
left=$(pgrep -f "^$PARLEY_BIN |/parley-vscode-e2e-[^/]*/extensions/[^ ]*/bin/parley " || true)
if [ -n "$left" ]; then
  echo "processes of $PARLEY_BIN outlive the tests:"; ps -o pid,args -p $left; kill -9 $left || true; exit 1
fi
if [ -n "$failed_targets" ]; then
  echo "vscode: FAILED: no .vsix for ${failed_targets% }: parley does not build there (the reasons are above)"
  exit 1
fi
echo "vscode: all checks passed"
