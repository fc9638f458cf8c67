#!/usr/bin/env bash
# Runs each fuzz target for a short time (FUZZTIME, default 10s).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10s}
found=0
while IFS= read -r line; do
  file=${line%%:*}
  name=$(sed -E 's/^.*func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"$line")
  pkg=./$(dirname "$file")
  echo "fuzz $pkg $name ($FUZZTIME)"
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$pkg"
  found=$((found+1))
done < <(git grep -n -E '^func Fuzz[A-Za-z0-9_]*\(' -- '*_test.go' || true)
echo "fuzz: $found targets"
