#!/usr/bin/env bash
# The VS Code extension's whole check: installs what it needs (cached outside the repo,
# see install-e2e.sh), builds parley and the extension, runs the unit tests against the
# real binary, packages the .vsix, and runs the end-to-end tests in a real VS Code with
# that .vsix installed. Screenshots and timings go to $PARLEY_VSCODE_ARTIFACTS (default
# editors/vscode/test-output, which git ignores).
#
#   editors/vscode/scripts/ci.sh            everything
#   editors/vscode/scripts/ci.sh --unit     only the unit tests and the .vsix (no browser)
#   editors/vscode/scripts/ci.sh --e2e      only the end-to-end tests (after ./scripts/test,
#                                           which runs the unit tests and builds the .vsix)
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

phase "package"
npm run --silent vsix >"$work/package.log" || { cat "$work/package.log"; exit 1; }
export PARLEY_VSIX=$here/parley.vsix
ls -l "$PARLEY_VSIX"
took

if ! $unit_only; then
  phase "end to end in a real VS Code (code-server + headless Chromium)"
  node --test out/test/e2e/vscode.test.js
  took
  echo "   screenshots: $PARLEY_VSCODE_ARTIFACTS/screenshots"
fi

# Nothing may outlive the tests: no backend, no agent.
left=$(pgrep -f "^$PARLEY_BIN " || true)
if [ -n "$left" ]; then
  echo "processes of $PARLEY_BIN outlive the tests:"; ps -o pid,args -p $left; kill -9 $left || true; exit 1
fi
echo "vscode: all checks passed"
