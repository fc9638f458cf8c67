package rulestore

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/rules"
	"github.com/dubboroute/dubboroute/rules/assembly"
)

// This file is the read-only view of the rule store that the console
// (package console, through extension.RuleStates) shows. Nothing here is on
// the call path.

// maxRejectedContent bounds the text of a rejected update kept for display.
const maxRejectedContent = 16 << 10

// Rejection is the last update of a rule key that was not applied.
type Rejection struct {
	// At is when it arrived.
	At time.Time
	// Error is the parse error (clipped), naming the line where known.
	Error string
	// Line is the rule line the error names, 0 if it names none.
	Line int
	// Ignored is true for an update Java Dubbo also ignores without an
	// error (configVersion above v3.1, no conditions, valid: false).
	Ignored bool
	// Content is the rejected text (clipped).
	Content string
}

func newRejection(err error, content string) *Rejection {
	r := &Rejection{At: time.Now(), Error: clip(err.Error(), maxLoggedError), Ignored: rules.IsIgnored(err),
		Content: clip(content, maxRejectedContent)}
	r.Line = lineOf(err.Error())
	return r
}

// lineOf is the number after the first word "line " followed by digits in
// msg (a parse error naming its line), 0 if none.
func lineOf(msg string) int {
	for i := 0; i < len(msg); {
		j := strings.Index(msg[i:], "line ")
		if j < 0 {
			return 0
		}
		j += i
		if j == 0 || !isWordByte(msg[j-1]) {
			k := j + len("line ")
			n := k
			for n < len(msg) && msg[n] >= '0' && msg[n] <= '9' {
				n++
			}
			if v, err := strconv.Atoi(msg[k:n]); err == nil {
				return v
			}
		}
		i = j + 1
	}
	return 0
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// RuleState is one config-center key this process subscribes, as it holds
// it now.
type RuleState struct {
	Key  string
	Kind rules.Kind
	// InForce is true when a rule is in force (false: none yet, or deleted).
	InForce bool
	// Version is the accepted revision in force, e.g. "3.1#2".
	Version string
	// Content is the text of the rule in force.
	Content string
	// Accepted is when the rule in force was accepted, or the key deleted;
	// zero if nothing was ever applied.
	Accepted time.Time
	// Rejected is the last update that was not applied, nil if none.
	Rejected *Rejection
	// Subscribers is how many chains follow the key.
	Subscribers int
	// Source names where the key is read: "Nacos dataId <key> group dubbo
	// namespace public", "zookeeper /dubbo/config/dubbo/<key>", or
	// dubbo-go's config center.
	Source string
}

// RuleStates lists every subscribed key, sorted by key.
func RuleStates() []RuleState {
	store.mu.Lock()
	kss := make([]*keyState, 0, len(store.keys))
	for _, ks := range store.keys {
		kss = append(kss, ks)
	}
	store.mu.Unlock()
	out := make([]RuleState, 0, len(kss))
	for _, ks := range kss {
		ks.mu.Lock()
		st := RuleState{Key: ks.key, Kind: ks.kind, InForce: !ks.ref.Empty() || ks.gray != nil,
			Version: ks.ref.Version, Content: ks.content, Accepted: ks.accepted, Subscribers: len(ks.subs), Source: ks.from}
		if ks.kind == rules.KindGray && ks.gray != nil && st.Version == "" {
			st.Version = "1#" + strconv.Itoa(ks.rev)
		}
		if ks.rejected != nil {
			r := *ks.rejected
			st.Rejected = &r
		}
		ks.mu.Unlock()
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// ServiceRuleKey is Java's <interface>:<version>:<group>.condition-router
// of a URL, as the assembly of a reference's rules names it.
func ServiceRuleKey(c *router.URL) string {
	return (&assembly.Reference{Consumer: c}).ServiceConditionKey()
}
