#!/usr/bin/env bash
# Shared helpers for the project's scripts. Source it; do not run it.

STATICCHECK_VERSION=${STATICCHECK_VERSION:-v0.6.1}

# log prints a step, with the seconds since the script began (SECONDS).
log() { printf '==> [%4ds] %s\n' "$SECONDS" "$*" >&2; }

# ensure_staticcheck sets STATICCHECK to a usable binary, installing it from
# the Go module proxy when it is missing.
ensure_staticcheck() {
  local gobin
  gobin=$(go env GOPATH)/bin
  if [ -x "$gobin/staticcheck" ]; then STATICCHECK="$gobin/staticcheck"; return; fi
  if command -v staticcheck >/dev/null 2>&1; then STATICCHECK=$(command -v staticcheck); return; fi
  log "installing staticcheck $STATICCHECK_VERSION"
  go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
  STATICCHECK="$gobin/staticcheck"
}

# ensure_zookeeper installs Debian's zookeeper package when it is missing and
# exports ZOOKEEPER_HOME for the integration tests (they start their own
# private server on a free loopback port).
ensure_zookeeper() {
  if [ ! -x /usr/share/zookeeper/bin/zkServer.sh ]; then
    log "installing ZooKeeper (Debian package zookeeper)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq zookeeper >/dev/null
  fi
  export ZOOKEEPER_HOME=/usr/share/zookeeper
}

# ensure_chromium installs Debian's chromium package when it is missing: the
# route console's browser test (integration/console, TestConsoleInBrowser)
# drives headless Chromium over the DevTools protocol on loopback.
ensure_chromium() {
  if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    log "installing Chromium (Debian package chromium)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
  fi
}

RNACOS_VERSION=${RNACOS_VERSION:-0.8.8}

# ensure_rnacos installs rnacos (crates.io, a Nacos-compatible server: the
# 1.x HTTP OpenAPI and the 2.x gRPC protocol) when ~/.cargo/bin/rnacos is
# missing, and exports RNACOS_BIN for the Nacos integration tests
# (integration/nacos starts a private server on free loopback ports). It
# builds from source: about 9 minutes on 2 cores the first time, kept after.
ensure_rnacos() {
  local bin="${CARGO_HOME:-$HOME/.cargo}/bin/rnacos"
  if [ ! -x "$bin" ]; then
    if ! command -v cargo >/dev/null 2>&1; then
      log "cargo is missing: rnacos cannot be built (install Rust with rustup)"
      return 1
    fi
    log "installing rnacos $RNACOS_VERSION (cargo install --locked; ~9 min on 2 cores the first time)"
    local t0=$(date +%s)
    cargo install rnacos --version "$RNACOS_VERSION" --locked --quiet
    log "rnacos built in $(( $(date +%s) - t0 ))s"
  fi
  export RNACOS_BIN="$bin"
}
