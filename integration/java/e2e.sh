#!/usr/bin/env bash
# End-to-end check of the Java peers against a private ZooKeeper (never 2181):
# two Java BookFacade providers (one untagged with status=gray, one with dubbo.tag=gray), then Java consumers
# whose calls must land where Java's own tag and condition routers send them, with rules written to
# /dubbo/config/dubbo/<key> like Dubbo Admin does. Exit 0 = all scenarios passed.
# Needs Debian's zookeeper package (/usr/share/java/zookeeper.jar). Takes about a minute.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/build.sh"
run="$here/run.sh"
ZKJAR=/usr/share/java/zookeeper.jar
[[ -f $ZKJAR ]] || { echo "e2e: $ZKJAR missing (apt-get install zookeeper)" >&2; exit 1; }
cp="$ZKJAR"; [[ -f /usr/share/java/slf4j-simple.jar ]] && cp="$cp:/usr/share/java/slf4j-simple.jar"

freeport() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
ZKPORT=$(freeport); P1=$(freeport); P2=$(freeport)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]:1}"; do kill "$p" 2>/dev/null || true; done   # providers first, then ZooKeeper
  for p in "${pids[@]:1}"; do for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done; kill -9 "$p" 2>/dev/null || true; done
  [[ ${#pids[@]} -gt 0 ]] && { kill "${pids[0]}" 2>/dev/null || true; wait "${pids[0]}" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/zoo.cfg" <<CFG
tickTime=2000
dataDir=$work/zk
clientPort=$ZKPORT
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok
CFG
java -Xmx256m -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true -cp "$cp" \
  org.apache.zookeeper.server.quorum.QuorumPeerMain "$work/zoo.cfg" >"$work/zk.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
  [[ "$( (exec 3<>/dev/tcp/127.0.0.1/$ZKPORT && printf ruok >&3 && cat <&3) 2>/dev/null)" == imok ]] && break; sleep 0.5
done
ZK=127.0.0.1:$ZKPORT
echo "e2e: ZooKeeper on $ZK, providers on $P1 (untagged, status=gray) and $P2 (dubbo.tag=gray)"

# Network rule: traffic only to loopback. Java refuses to register 127.x by itself; --register-host makes
# RegisterHostCustomizer rewrite the registered host (the server binds 0.0.0.0).
# P1 registers 127.0.0.2 (still loopback) so that a CIDR tag address can single it out: Java matches no
# other IPv4 address pattern against a loopback host (NetUtils.isValidV4Address; see the scenario below).
"$run" provider --zk "$ZK" --port "$P1" --app demo-provider --register-host 127.0.0.2 --param status=gray >"$work/p1.out" 2>"$work/p1.err" &
pids+=($!)
"$run" provider --zk "$ZK" --port "$P2" --app demo-provider --register-host 127.0.0.1 --tag gray >"$work/p2.out" 2>"$work/p2.err" &
pids+=($!)
for _ in $(seq 1 120); do
  grep -q READY "$work/p1.out" && grep -q READY "$work/p2.out" && break; sleep 0.5
done
grep -q READY "$work/p1.out" && grep -q READY "$work/p2.out" || { echo "e2e: providers not ready" >&2; tail -20 "$work"/p*.err >&2; exit 1; }

# Raw registry read: both providers registered dubbo://127.0.0.1:<port>/..., nothing else.
regs=$("$run" zkrule --zk "$ZK" --ls /dubbo/com.muke.dubbocourse.common.api.BookFacade/providers 2>>"$work/zkrule.err")
echo "$regs" | sed 's/?.*//' | sed 's/^/e2e: registered /'
want=$(printf 'dubbo://127.0.0.2:%s/\ndubbo://127.0.0.1:%s/\n' "$P1" "$P2" | sort)
got=$(echo "$regs" | sed -E 's#^(dubbo://[^/]*/).*#\1#' | sort)
[[ "$got" == "$want" ]] || { echo "e2e: FAIL registered addresses: want $want, got $got" >&2; exit 1; }

fail=0
# expect NAME WANT consumer-args...   WANT = a port every call must be served by, or "none" (every call fails)
expect() {
  local name=$1 want=$2; shift 2
  local out; out=$("$run" consumer --zk "$ZK" --calls 4 --wait-ms 1000 "$@" 2>"$work/c.err")
  local got
  got=$(python3 -c '
import json,sys
lines=[json.loads(l) for l in sys.stdin if l.strip()]
s=sorted({l["served_by"] if l["ok"] else "none" for l in lines})
print(",".join(s) if lines else "no-output")' <<<"$out")
  if [[ "$got" == "$want" ]]; then echo "ok   $name ($got)"; else echo "FAIL $name: want $want, got $got"; echo "$out" | head -2; fail=1; fi
}
rule() { "$run" zkrule --zk "$ZK" "$@" 2>>"$work/zkrule.err"; }

expect "no tag -> untagged provider only" "$P1"
expect "tag gray -> tagged provider" "$P2" --attach dubbo.tag=gray
expect "tag red -> falls back to untagged" "$P1" --attach dubbo.tag=red
expect "tag red + force -> no provider" none --attach dubbo.tag=red --attach dubbo.force.tag=true

SVC=com.muke.dubbocourse.common.api.BookFacade::.condition-router
rule --key "$SVC" --content $'scope: service\nforce: true\nenabled: true\nkey: com.muke.dubbocourse.common.api.BookFacade\nconditions:\n  - method=queryByName => false\n'
expect "service rule: queryAll unaffected" "$P1" --method queryAll
expect "service rule: queryByName blacklisted" none --method queryByName --arg Go
rule --key "$SVC" --delete

rule --key demo-provider.tag-router --content $'force: false\nenabled: true\nkey: demo-provider\ntags:\n  - name: gray\n    addresses: ["127.0.0.2/32"]\n'
expect "dynamic tag rule: gray -> 127.0.0.2/32 ($P1)" "$P1" --attach dubbo.tag=gray
expect "dynamic tag rule: no tag -> nobody left" none
# Java quirk: on a loopback provider host every IPv4 pattern but *, *.*.*.* and CIDR throws (logged, no match),
# so 0.0.0.0:<port> claims nothing and untagged requests still reach P1.
rule --key demo-provider.tag-router --content $'force: false\nenabled: true\nkey: demo-provider\ntags:\n  - name: gray\n    addresses: ["0.0.0.0:'"$P1"$'"]\n'
expect "dynamic tag rule 0.0.0.0:$P1 on loopback hosts: claims nothing" "$P1"
rule --key demo-provider.tag-router --delete

# The tag router runs first (an untagged request keeps only the untagged provider, which has status=gray),
# then the consumer-app rule of demo-consumer2 only.
rule --key demo-consumer2.condition-router --content $'force: true\nconditions:\n  - application=demo-consumer2 => status!=gray\n'
expect "consumer-app rule applies to its app (force, empty)" none --app demo-consumer2
expect "consumer-app rule ignores other apps" "$P1" --app demo-consumer1

if [[ $fail -ne 0 ]]; then echo "e2e: FAILED" >&2; exit 1; fi
echo "e2e: OK"
