// Package fault holds issue 8's fault tests: what happens to a dubbo-go
// consumer routed by dubboroute when things break, on a private real
// ZooKeeper (integration/zk) with the BookFacade sample's provider and
// consumer processes (integration/harness; built with -race, a data race in
// dubboroute code fails the test). Everything is loopback; the package has
// no non-test code.
//
// Load runs inside the consumer process through its GET /load endpoint
// (samples/bookfacade/consumer): paced batches of calls, a new one every
// second, each reporting for every call the serving port, whether it
// failed, and the generation of the consumer's routing snapshot just before
// and just after the call, with the ports each of those snapshots routes the
// call to. A test can therefore assert per call both the outcome the rules
// demand and that the call was served as a real snapshot routes it.
//
// The tests:
//
//   - TestZooKeeperOutage: 250 calls/s while ZooKeeper is stopped for 20 s
//     and restarted: no call fails, and a rule written after the restart
//     routes within 5 s.
//
//   - TestProviderLoss: one of two providers SIGKILLed under 250 calls/s
//     with the default failover retries (2): no call fails, and it leaves
//     the route (explain) once its ZooKeeper session expires.
//
//   - TestMalformedRules: 47 malformed condition, tag and gray rules
//     (corpus_test.go; TestCorpusIsMalformed checks them against the
//     parsers in process) pushed one after another under 220 calls/s of
//     four kinds: each refused with a consumer log line naming key and line,
//     every call routed by the last good rules; then empty content, which is
//     a delete, deletes each rule.
//
//   - TestRuleChurn: 20 single-key rule updates per second for 30 s,
//     alternating between two rule sets, under 550 calls/s: no failure, no
//     call on a provider neither rule set allows, every snapshot a state of
//     one of them, every call served as its snapshot routes it, no race, no
//     panic, no goroutine leak.
//
//   - TestBlacklistsHold: a consumer blacklisted by host at the service,
//     consumer-app or provider-app level gets no provider in any of 108
//     combinations of tag rule, gray rule, dubbo.tag/force and gray or
//     normal user, while the same calls without the blacklist are served.
//
//   - TestEnsembleFaults: a 3-member ensemble (integration/zk.StartEnsemble)
//     under 250 calls/s: the leader killed, the consumer's sessions moved to
//     another member, two of three members down for 8 s, the consumer's
//     session expired while a rule changed: no call fails, rules written
//     after each fault route (within 2 s after an election), and the rule
//     written during the expiry is not lost.
//
//   - TestOutlierEjection: four providers, one timing out on command, two
//     consumers with retries 0 side by side: Java's behaviour (no ejection)
//     loses every call that picks it; with outlier ejection (3 consecutive
//     errors, base 3 s) only the calls that detect it, with the ejection
//     and return times checked against base × backoff and the interval
//     (resilience_test.go, docs/resilience.md).
//
//   - TestRetryBudget: every provider times out; Java's failover makes 3
//     attempts per call, the retry budget (10 tokens, ratio 0.1) N + a few.
//
// Each test logs its measured counts (calls, failures, rates, rules
// rejected, updates accepted). Run with `go test -race ./integration/fault`
// (make test does); the package takes about four minutes on two cores.
package fault
