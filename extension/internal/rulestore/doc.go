// Package rulestore is the process's store of config-center rule keys:
// each key (<key>.condition-router, .tag-router, .gray-router,
// .configurators, ...) is subscribed once per process, read and followed
// through the rule source registered for the config center (package
// extension/source) or else dubbo-go's listener, parsed (package rules),
// and its last good rule fanned out to the chains that subscribed it
// (Subscribe, used by extension/consumer and extension/provider). Rejected
// and ignored updates are logged, counted and kept for inspection
// (RuleStates); the last good rule keeps routing.
package rulestore
