#!/usr/bin/env bash
# Shared helpers for the project's scripts. Source it; do not run it.

STATICCHECK_VERSION=${STATICCHECK_VERSION:-v0.6.1}

log() { printf '==> %s\n' "$*" >&2; }

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
