#!/usr/bin/env bash
# make bench: dubboroute side by side with dubbo-go v3.3.2's built-in routers
# and load balancer (integration/bench), both implementations in one run.
#
#   1. the parity tests: both sides route every benchmark invocation to the
#      same providers, and each side really is the implementation it claims;
#   2. the benchmarks, one package at a time (-p 1, so test binaries do not
#      compete for the CPUs): chain, condition, tag, pick, rebuild, RPC;
#   3. the table (integration/bench/cmd/benchtable) with the targets of
#      issue 8, and the machine it ran on;
#   4. scale, end to end (integration/bench/scale, BenchmarkScale): a fleet
#      of 100 and 1,000 provider registrations in a private
#      ZooKeeper, a dubboroute and a plain dubbo-go consumer process over
#      real RPC, a provider storm and a consumer with 100 references
#      (about 10 minutes; SCALE=0 skips it, SCALE_N=100,1000,5000 picks sizes).
#
# Raw output and the tables go to integration/bench/results/<UTC time>/
# (git-ignored). Environment: BENCHTIME (default 1s), COUNT (default 1),
# BENCH (the -bench regexp, default .), SCALE, SCALE_N, SCALE_LOAD (the
# measured load per consumer, default 10s).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
SCALE=${SCALE:-1}
[ "$SCALE" = 0 ] || ensure_zookeeper

BENCHTIME=${BENCHTIME:-1s}
COUNT=${COUNT:-1}
BENCH=${BENCH:-.}
PKGS=(./integration/bench ./integration/bench/rpc ./integration/bench/rpcbase)
out=integration/bench/results/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
start=$(date +%s)

log "parity tests"
go test -count=1 -p 1 "${PKGS[@]}" ./integration/bench/cmd/benchtable

cmd="go test -run '^\$' -bench '$BENCH' -benchtime $BENCHTIME -count $COUNT -p 1 -timeout 30m ${PKGS[*]}"
log "$cmd"
eval "$cmd" | tee "$out/raw.txt"

cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
{
  echo "Machine: ${cpu:-unknown CPU}, $(nproc) vCPUs (GOMAXPROCS $(nproc)), $(go version | cut -d' ' -f3-), $(uname -sr)."
  echo "Command: make bench ($cmd)"
  echo
  go run ./integration/bench/cmd/benchtable -targets < "$out/raw.txt"
} | tee "$out/table.md"

if [ "$SCALE" != 0 ]; then
  scmd="go test -run '^\$' -bench BenchmarkScale -benchtime 1x -timeout 40m ./integration/bench/scale"
  log "scale, end to end: $scmd"
  mkdir -p "$out/scale-profiles"
  abs=$(cd "$out" && pwd)
  export SCALE_OUT="$abs/scale.md" SCALE_PROFILE="$abs/scale-profiles"
  eval "$scmd" | tee "$out/scale.txt"
  { echo; echo "Command: make bench ($scmd)"; echo; cat "$out/scale.md"; } | tee -a "$out/table.md"
fi

log "raw output and tables in $out ($(( $(date +%s) - start ))s)"
