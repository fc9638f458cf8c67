#!/usr/bin/env bash
# gofmt, go vet and staticcheck (installed from the Go module proxy if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

unformatted=$(gofmt -l $(git ls-files '*.go'; git ls-files --others --exclude-standard '*.go') 2>/dev/null || true)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
ensure_staticcheck
"$STATICCHECK" ./...
echo "lint: ok"
