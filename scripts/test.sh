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

log "go test -race ./..."
go test -race -count=1 -timeout 20m ./...

log "fuzz (short)"
bash scripts/fuzz.sh

log "all tests passed in $(( $(date +%s) - start ))s"
