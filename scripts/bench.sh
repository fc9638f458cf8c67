#!/usr/bin/env bash
# make bench: dubboroute side by side with dubbo-go v3.3.2's built-in routers
# and load balancer (integration/bench), both implementations in one run.
#
#   1. the parity tests: both sides route every benchmark invocation to the
#      same providers, and each side really is the implementation it claims;
#   2. the benchmarks, one package at a time (-p 1, so test binaries do not
#      compete for the CPUs): chain, condition, tag, pick, rebuild, RPC;
#   3. the table (integration/bench/cmd/benchtable) with the targets of
#      issue 8, and the machine it ran on.
#
# Raw output and the table go to integration/bench/results/<UTC time>/
# (git-ignored). Environment: BENCHTIME (default 1s), COUNT (default 1),
# BENCH (the -bench regexp, default .).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

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

log "raw output and table in $out ($(( $(date +%s) - start ))s)"
