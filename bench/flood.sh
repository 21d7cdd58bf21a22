#!/usr/bin/env bash
# flood.sh: session/update throughput across a real process boundary.
#
#   bench/flood.sh [N]        N chunks per flood, default 100000
#
# Four pairings, each flooding N agent_message_chunk notifications in one
# prompt turn ("flood N"), each run 3 times; the table shows the median:
#   (a) SDK client <-> SDK agent      test/interop/peers/{client,agent}.mjs: the anchor
#   (b) parley run --agent eliza      parley <-> parley
#   (c) SDK client <-> parley eliza
#   (d) parley run <-> SDK agent      --agent-command "node test/interop/peers/agent.mjs"
#
# Method
#   (a), (c): the client peer times the turn itself, from writing the
#     session/prompt request to receiving its response, and counts the chunks
#     it handled (lossless = exactly N). Process start-up is not included.
#   (b), (d): whole-process wall time of `parley run ... "flood N"` minus the
#     median wall time of the same command with "flood 1" (start-up,
#     initialize, session/new, exit), so the figure is again the turn alone.
#     Lossless: stdout must be exactly the N chunk texts in order: the lines
#     1..N for the SDK agent (d), the words 0..N-1 for eliza (b).
#   Frame validation is off in the Node peers (--no-validate) for every
#   pairing: the test suite validates; the benchmark measures transport.
#   The machine's other load shows in the figures; compare runs on an idle one.
#
# Targets: (b) >= 3x (a); (c) and (d) >= 1x (a) and lossless.
# Output: the table on stdout and in bench/out/flood.txt.

set -euo pipefail

N=${1:-100000}
RUNS=3
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PEERS=$ROOT/test/interop/peers
OUT=$ROOT/bench/out
WORK=$(mktemp -d "${TMPDIR:-/tmp}/parley-flood.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"

log() { printf '%s\n' "$*" >&2; }

if [[ ! -d $ROOT/test/interop/node_modules/@agentclientprotocol/sdk ]]; then
  log "installing the interop peers: npm ci --prefix test/interop"
  npm ci --prefix "$ROOT/test/interop" >&2
fi

PARLEY=$WORK/parley
PARLEY_OK=1
log "building parley"
if ! (cd "$ROOT" && go build -o "$PARLEY" ./cmd/parley) >&2; then
  log "parley does not build: only pairing (a) will run"
  PARLEY_OK=0
fi

now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# json_field FILE EXPR prints a field of the client summary (EXPR in JS, d = summary).
json_field() {
  node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); console.log(eval(process.argv[2]))' "$1" "$2"
}

# client_flood AGENT_COMMAND: one flood through the SDK client; prints "rate lossless".
client_flood() {
  local summary=$WORK/client.json
  if ! timeout 600 node "$PEERS/client.mjs" --agent "$1" --flood "$N" --no-validate --cwd "$WORK" --timeout 590000 >"$summary"; then
    log "client peer failed: $(json_field "$summary" 'd.error || JSON.stringify(d.steps)' 2>/dev/null || echo '?')"
    echo "0 no"
    return
  fi
  json_field "$summary" '`${d.flood.perSecond} ${d.flood.lossless ? "yes" : "no"}`'
}

# wall_us CMD...: wall time of one run in microseconds; stdout goes to $WORK/run.out.
wall_us() {
  local start end
  start=$(now_us)
  if ! timeout 600 "$@" >"$WORK/run.out" 2>"$WORK/run.err"; then
    log "failed: $* : $(tail -c 500 "$WORK/run.err")"
    echo -1
    return
  fi
  end=$(now_us)
  echo $((end - start))
}

# run_flood PROMPT_PREFIX_CMD...: median rate of `CMD "flood N"` with start-up
# subtracted; checks each big run's output with check_output. Prints "rate lossless".
run_flood() {
  local startup=() big=() t lossless=yes i
  for ((i = 0; i < RUNS; i++)); do
    t=$(wall_us "$@" "flood 1")
    [[ $t -lt 0 ]] && { echo "0 no"; return; }
    startup+=("$t")
  done
  for ((i = 0; i < RUNS; i++)); do
    t=$(wall_us "$@" "flood $N")
    [[ $t -lt 0 ]] && { echo "0 no"; return; }
    check_output || lossless=no
    big+=("$t")
  done
  local s b
  s=$(median "${startup[@]}")
  b=$(median "${big[@]}")
  if ((b <= s)); then
    echo "0 $lossless"
    return
  fi
  echo "$(awk -v n="$N" -v us=$((b - s)) 'BEGIN {printf "%d", n / (us / 1e6)}') $lossless"
}

# Output checks for the parley run pairings.
check_lines_1_to_n() {
  awk -v n="$N" 'NF == 0 {next} {seen++; if ($0 != seen) bad = 1} END {exit !(seen == n && !bad)}' "$WORK/run.out"
}
check_words_0_to_n() {
  tr -s ' \n' '\n\n' <"$WORK/run.out" |
    awk -v n="$N" 'NF == 0 {next} {if ($0 != seen) bad = 1; seen++} END {exit !(seen == n && !bad)}'
}

declare -A RATE LOSSLESS
measure() { # KEY: runs the pairing RUNS times (client pairings) and records the median
  local key=$1 rates=() r l lossless=yes i
  shift
  for ((i = 0; i < RUNS; i++)); do
    read -r r l < <("$@")
    rates+=("$r")
    [[ $l == yes ]] || lossless=no
  done
  RATE[$key]=$(median "${rates[@]}")
  LOSSLESS[$key]=$lossless
}

log "(a) SDK client <-> SDK agent"
measure a client_flood "node $PEERS/agent.mjs --no-validate"

if ((PARLEY_OK)); then
  log "(b) parley run --agent eliza"
  check_output() { check_words_0_to_n; }
  read -r RATE[b] LOSSLESS[b] < <(run_flood "$PARLEY" run --agent eliza)

  log "(c) SDK client <-> parley eliza"
  measure c client_flood "$PARLEY eliza"

  log "(d) parley run <-> SDK agent"
  check_output() { check_lines_1_to_n; }
  read -r RATE[d] LOSSLESS[d] < <(run_flood "$PARLEY" run --agent-command "node $PEERS/agent.mjs --no-validate" --cwd "$WORK")
fi

row() { # KEY LABEL TARGET_RATIO
  local key=$1 label=$2 target=$3 rate=${RATE[$1]:-} ratio verdict
  if [[ -z $rate || $rate == 0 ]]; then
    printf '%-36s %12s %8s   %-26s %s\n' "$label" "-" "-" "$4" "not measured"
    return
  fi
  ratio=$(awk -v r="$rate" -v a="${RATE[a]}" 'BEGIN {printf "%.2f", r / a}')
  verdict=met
  if [[ $key != a ]]; then
    awk -v x="$ratio" -v t="$target" 'BEGIN {exit !(x >= t)}' || verdict=MISSED
    [[ ${LOSSLESS[$key]} == yes ]] || verdict="MISSED (lost chunks)"
  else
    verdict=anchor
    [[ ${LOSSLESS[$key]} == yes ]] || verdict="anchor (lost chunks!)"
  fi
  printf '%-36s %12s %7sx   %-26s %s\n' "$label" "$(printf "%'d" "$rate")" "$ratio" "$4" "$verdict"
}

{
  printf 'flood: %d agent_message_chunk notifications per turn, median of %d runs\n' "$N" "$RUNS"
  printf '%s, %s CPUs, node %s, %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(nproc)" "$(node --version)" "$(go version | cut -d' ' -f3)"
  printf '%-36s %12s %8s   %-26s %s\n' pairing notif/s "vs (a)" target verdict
  row a "(a) SDK client <-> SDK agent" 1 "anchor"
  row b "(b) parley run --agent eliza" 3 ">= 3x (a)"
  row c "(c) SDK client <-> parley eliza" 1 ">= 1x (a), lossless"
  row d "(d) parley run <-> SDK agent" 1 ">= 1x (a), lossless"
} | tee "$OUT/flood.txt"
