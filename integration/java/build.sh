#!/usr/bin/env bash
# Builds integration/java: target/dubboroute-java-it.jar (+ target/lib/*.jar via its manifest Class-Path).
# Idempotent: does nothing when the jar is newer than pom.xml and every source file.
# Tries Maven offline first (~/.m2 cache); only if that fails for a missing download does it go online
# (Maven Central). Compile errors are reported as they are.
set -euo pipefail
cd "$(dirname "$0")"
JAR=target/dubboroute-java-it.jar
if [[ -f "$JAR" && -d target/lib && -z "$(find pom.xml src -newer "$JAR" -print -quit)" ]]; then
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! mvn -q -B -o package >"$log" 2>&1; then
  if grep -qE "offline mode|has not been downloaded|Could not resolve|Cannot access|could not be resolved|Failed to read artifact descriptor" "$log"; then
    echo "build.sh: offline build lacks downloads, building online (Maven Central)" >&2
    mvn -q -B package
  else
    cat "$log" >&2
    exit 1
  fi
fi
touch "$JAR"
