#!/usr/bin/env bash
# Runs the oracle on testdata/smoke.jsonl and diffs with testdata/smoke.expected.jsonl.
# The expected file holds Java Dubbo's answers, checked by hand against the spec's §11 vectors
# (see README.md for the list). Exit status: 0 = identical, 1 = mismatch or failure.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh
out=$(mktemp)
trap 'rm -f "$out"' EXIT
java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.Oracle < testdata/smoke.jsonl > "$out" 2>/dev/null
if ! diff -u testdata/smoke.expected.jsonl "$out"; then
  echo "smoke: MISMATCH" >&2
  exit 1
fi
# The same cases in reverse order must give the same answers (no state leaks from one case to the next).
tac testdata/smoke.jsonl | java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.Oracle 2>/dev/null | sort > "$out"
if ! sort testdata/smoke.expected.jsonl | diff -u - "$out"; then
  echo "smoke: results depend on case order" >&2
  exit 1
fi
echo "smoke: OK ($(wc -l < testdata/smoke.jsonl) cases)"
