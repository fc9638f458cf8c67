#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what it needs
# (staticcheck, ZooKeeper, the Java interop build), then lint, unit and race
# tests, short fuzz runs, and the integration tests on real ZooKeeper, real
# dubbo-go RPC and real Java Dubbo.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
start=$(date +%s)

ensure_zookeeper

log "lint"
bash scripts/lint.sh

# Packages whose tests start several dubbo-go instances in one process run
# without the race detector: dubbo-go v3.3.2 replaces its package-level
# loggers (gost, dubbo-go, getty) unsynchronised on every dubbo.NewInstance
# while earlier instances' goroutines log, which -race reports inside
# dubbo-go. Everything of ours runs under -race, and so do the integration
# tests, whose dubbo-go processes (built with -race) each create one instance.
NORACE_PKGS=(./extension ./integration/bench/rpc ./integration/bench/rpcbase)
mapfile -t race_pkgs < <(go list ./... | grep -v -x -F -f <(for p in "${NORACE_PKGS[@]}"; do go list "$p"; done))

log "go test -race (${#race_pkgs[@]} packages)"
go test -race -count=1 -timeout 20m "${race_pkgs[@]}"

log "go test (no -race: ${NORACE_PKGS[*]})"
go test -count=1 -timeout 10m "${NORACE_PKGS[@]}"

log "fuzz (short)"
bash scripts/fuzz.sh

log "all tests passed in $(( $(date +%s) - start ))s"
