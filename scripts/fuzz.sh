#!/usr/bin/env bash
# Runs each fuzz target for a short time. The total is budgeted:
# FUZZBUDGET seconds (default 40: 3 s each for the 12 targets, about the 60 s of 6 x 10 s before, start-up included) shared among the targets, at least
# FUZZMIN seconds (default 3) each, so adding a target does not lengthen
# make test much. FUZZTIME (e.g. 5m) runs every target that long instead
# (by hand, to look for new findings).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t targets < <(git grep -n -E '^func Fuzz[A-Za-z0-9_]*\(' -- '*_test.go' || true)
n=${#targets[@]}
if [[ -z ${FUZZTIME:-} ]]; then
  budget=${FUZZBUDGET:-40}
  each=$(( n > 0 ? budget / n : budget ))
  (( each < ${FUZZMIN:-3} )) && each=${FUZZMIN:-3}
  FUZZTIME=${each}s
fi
found=0
for line in "${targets[@]}"; do
  file=${line%%:*}
  name=$(sed -E 's/^.*func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"$line")
  pkg=./$(dirname "$file")
  echo "fuzz $pkg $name ($FUZZTIME)"
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$pkg"
  found=$((found+1))
done
echo "fuzz: $found targets"
