#!/usr/bin/env bash
# The web chat's whole check: its packages (npm ci, from npm's cache once fetched), the
# type check, the bundle built again and compared with the one committed under
# internal/webui/dist (the one `go install` embeds), the browser tests against the real
# `parley web` in Debian's headless Chromium with their screenshots, and the benchmark
# (first paint; parley eliza's flood 100000 in the page against parley run's).
# Screenshots and figures go to $PARLEY_ARTIFACTS/web (default .artifacts/web).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(cd .. && pwd)
export PARLEY_ARTIFACTS=${PARLEY_ARTIFACTS:-$repo/.artifacts}

if ! command -v chromium >/dev/null; then
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  echo "web: apt-get install chromium" >&2
  $sudo_ apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends chromium >&2
fi
export CHROMIUM=${CHROMIUM:-$(command -v chromium)}

echo "== web: npm ci"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error

echo "== web: type check"
npm run --silent check

echo "== web: the committed bundle is what web/ builds"
npm run --silent build
if [ -n "$(git -C "$repo" status --porcelain -- internal/webui/dist)" ]; then
  git -C "$repo" status --short -- internal/webui/dist
  echo "internal/webui/dist differs from a build of web/: run 'npm run build' in web/ and commit the result" >&2
  exit 1
fi
echo "bundle: $(wc -c < "$repo/internal/webui/dist/app.js") bytes, $(gzip -9 -c "$repo/internal/webui/dist/app.js" | wc -c) gzipped (+ $(gzip -9 -c "$repo/internal/webui/dist/style.css" | wc -c) of CSS)"

echo "== web: the chat in headless Chromium (screenshots in $PARLEY_ARTIFACTS/web)"
npm test

echo "== web: benchmark"
npm run --silent bench
