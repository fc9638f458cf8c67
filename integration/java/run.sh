#!/usr/bin/env bash
# Runs one of the Java programs, building first if needed.
#   integration/java/run.sh provider --zk 127.0.0.1:2191 --port 20880 [...]
#   integration/java/run.sh consumer --zk 127.0.0.1:2191 --calls 10 [...]
#   integration/java/run.sh oracle [--destinations|--samples N] < cases.jsonl
# Build output goes to stderr, so stdout carries only the program's own lines.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/build.sh" >&2
jar="$here/target/dubboroute-java-it.jar"
what="${1:-}"; shift || true
# Provider and consumer are short-lived test peers: favour start-up time (C1 only, serial GC, small heap).
peer_opts=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms32m -Xmx256m -Djava.net.preferIPv4Stack=true)
case "$what" in
  provider) exec java "${peer_opts[@]}" -cp "$jar" io.github.dubboroute.it.BookProvider "$@" ;;
  consumer) exec java "${peer_opts[@]}" -cp "$jar" io.github.dubboroute.it.BookConsumer "$@" ;;
  zkrule)   exec java "${peer_opts[@]}" -cp "$jar" io.github.dubboroute.it.ZkRule "$@" ;;
  oracle)   exec java -Xmx512m -cp "$jar" io.github.dubboroute.it.Oracle "$@" ;;
  *) echo "usage: $0 provider|consumer|zkrule|oracle [args...]" >&2; exit 2 ;;
esac
