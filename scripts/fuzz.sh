#!/usr/bin/env bash
# Runs each fuzz target for a short time. The total is budgeted:
# FUZZBUDGET seconds (default 40: 3 s each for the 12 targets, about the 60 s of 6 x 10 s before, start-up included) shared among the targets, at least
# FUZZMIN seconds (default 3) each, so adding a target does not lengthen
# make test much. FUZZTIME (e.g. 5m) runs every target that long instead
# (by hand, to look for new findings).
#
# Go's coordinator can fail a target with a bare "context deadline exceeded"
# when -fuzztime ends while a starved worker is mid-input (go.dev/issue/75804;
# seen here once under CI load). Such a run wrote no failing input; the target
# is run once more, and fails the job if it fails again or if any run wrote
# an input under testdata/fuzz/<name>.
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
# inputs DIR counts the fuzz inputs written under DIR (0 if none).
inputs() { if [[ -d $1 ]]; then find "$1" -type f | wc -l; else echo 0; fi; }
# fuzzone PKG NAME runs one target, once more after a bare deadline failure.
fuzzone() {
  local pkg=$1 name=$2 dir="$1/testdata/fuzz/$2" before after out rc
  for attempt in 1 2; do
    before=$(inputs "$dir")
    rc=0
    out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1) || rc=$?
    printf '%s\n' "$out"
    (( rc == 0 )) && return 0
    after=$(inputs "$dir")
    if (( attempt == 1 && after == before )) && grep -q 'context deadline exceeded' <<<"$out" \
       && ! grep -q 'Failing input written' <<<"$out"; then
      echo "fuzz: $name: bare deadline at the end of -fuzztime, no input written (go.dev/issue/75804); running it again"
      continue
    fi
    return "$rc"
  done
}
found=0
for line in "${targets[@]}"; do
  file=${line%%:*}
  name=$(sed -E 's/^.*func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"$line")
  pkg=./$(dirname "$file")
  echo "fuzz $pkg $name ($FUZZTIME)"
  fuzzone "$pkg" "$name"
  found=$((found+1))
done
echo "fuzz: $found targets"
