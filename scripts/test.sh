#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what it needs
# (staticcheck, ZooKeeper, rnacos, the Java interop build), then lint, unit and race
# tests, short fuzz runs, and the integration tests on real ZooKeeper, real
# dubbo-go RPC and real Java Dubbo.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
start=$(date +%s)

ensure_zookeeper
ensure_chromium
ensure_rnacos

log "Java interop build (Maven; offline first, Maven Central on first run)"
bash integration/java/build.sh

log "lint"
bash scripts/lint.sh

# Packages whose tests start several dubbo-go instances in one process run
# without the race detector: dubbo-go v3.3.2 replaces its package-level
# loggers (gost, dubbo-go, getty) unsynchronised on every dubbo.NewInstance
# while earlier instances' goroutines log, which -race reports inside
# dubbo-go. Everything of ours runs under -race, and so do the integration
# tests, whose dubbo-go processes (built with -race) each create one instance.
NORACE_PKGS=(./extension/... ./integration/bench/rpc ./integration/bench/rpcbase)
norace=$(go list "${NORACE_PKGS[@]}")
all=$(go list ./...)
# Unit packages run in parallel; integration packages (private ZooKeeper,
# provider/consumer processes, Java peers) one at a time so their bounded
# waits are not starved on a 2-core machine.
mapfile -t unit_pkgs < <(grep -v -x -F "$norace" <<<"$all" | grep -v '/integration/' || true)
mapfile -t integ_pkgs < <(grep -v -x -F "$norace" <<<"$all" | grep '/integration/' || true)

log "go test -race: unit packages (${#unit_pkgs[@]})"
go test -race -count=1 -timeout 15m "${unit_pkgs[@]}"

log "go test (no -race: ${NORACE_PKGS[*]})"
go test -count=1 -timeout 10m "${NORACE_PKGS[@]}"
# Allocation counts that depend on sync.Pool, which the race detector
# empties at random: asserted here, without -race.
go test -count=1 -run 'TestRouteAllocations' ./router/script

# Integration packages run in two streams, each one package at a time:
# integration/interop (Java peers and oracles, the longest package, mostly
# JVM start-up and waits) followed by quickstart and bookfacade, beside the
# others (private ZooKeeper/rnacos servers, outages, provider/consumer
# processes; integration/fault is the longest). The split keeps the two
# streams about equal (~820 s each on 2 cores). Each package's bounded
# waits are sized for a loaded 2-core machine; the first stream's output is
# printed when both are done.
interop=github.com/dubboroute/dubboroute/integration/interop
first_stream=("$interop" github.com/dubboroute/dubboroute/integration/quickstart github.com/dubboroute/dubboroute/integration/bookfacade)
mapfile -t rest_pkgs < <(printf '%s\n' "${integ_pkgs[@]}" | grep -v -x -F -f <(printf '%s\n' "${first_stream[@]}") || true)
interop_log=$(mktemp)
log "go test -race: integration packages (${#integ_pkgs[@]}): interop, quickstart and bookfacade beside the other ${#rest_pkgs[@]}, one at a time"
go test -race -count=1 -p 1 -timeout 30m "${first_stream[@]}" >"$interop_log" 2>&1 &
interop_pid=$!
rest_rc=0
go test -race -count=1 -p 1 -timeout 30m "${rest_pkgs[@]}" || rest_rc=$?
interop_rc=0
wait "$interop_pid" || interop_rc=$?
log "integration/interop, quickstart, bookfacade (exit $interop_rc):"
cat "$interop_log"
rm -f "$interop_log"
if (( rest_rc != 0 || interop_rc != 0 )); then
  log "integration tests failed (interop exit $interop_rc, others exit $rest_rc)"
  exit 1
fi

log "fuzz (short)"
bash scripts/fuzz.sh

log "all tests passed in $(( $(date +%s) - start ))s"
