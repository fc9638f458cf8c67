// Package console tests dubboroute's route console (package console) in a
// real browser: a sample BookFacade consumer process started with its
// console on a loopback port, real providers and rules in a private
// ZooKeeper, and Debian's headless Chromium driven over the DevTools
// protocol (cdp_test.go: a small client over loopback). Chromium is
// installed by scripts/test.sh (ensure_chromium) like ZooKeeper.
package console
