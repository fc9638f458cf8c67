package lane

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	tri "dubbo.apache.org/dubbo-go/v3/protocol/triple/triple_protocol"
)

// TripleHeaderConvert is the triple header in which Java Dubbo 3 carries the
// original spelling of attachment keys that HTTP/2 lowercased: the
// URL-encoded JSON object {"userid":"userId"}. A Java triple consumer sends
// it and a Java triple provider renames the attachments back (so a Java
// provider sees userId); dubbo-go v3.3.2 neither sends nor reads it, so
// userId arrives as userid wherever a Go peer is involved (measured).
const TripleHeaderConvert = "tri-header-convert"

// restoreTripleKeys renames the attachments of a served call back to the
// spelling its TripleHeaderConvert attachment names, and removes that
// attachment, as a Java triple provider does. Without the attachment (every
// dubbo-protocol call, and triple calls with lowercase keys only) it does
// nothing. The attachment map is the one in the handler's ctx too, so the
// handler and the lane see the restored keys.
func restoreTripleKeys(inv base.Invocation) {
	if inv == nil {
		return
	}
	atts := inv.Attachments()
	raw, ok := atts[TripleHeaderConvert]
	if !ok {
		return
	}
	var enc string
	switch v := raw.(type) {
	case string:
		enc = v
	case []string:
		if len(v) > 0 {
			enc = v[0]
		}
	}
	delete(atts, TripleHeaderConvert)
	js, err := url.QueryUnescape(enc)
	if err != nil {
		return
	}
	var names map[string]string
	if json.Unmarshal([]byte(js), &names) != nil {
		return
	}
	for lower, orig := range names {
		v, ok := atts[lower]
		if !ok || lower == orig || strings.ToLower(orig) != lower {
			continue
		}
		if _, taken := atts[orig]; !taken {
			atts[orig] = v
		}
		delete(atts, lower)
	}
}

// withTripleKeyNames returns ctx carrying, as an outgoing triple header,
// the TripleHeaderConvert value for the attachment keys of inv that contain
// upper-case letters (dubbo-go's triple invoker lowercases every key), so a
// Java triple provider restores them as it does for a Java consumer. Only
// the triple protocol reads outgoing triple headers: a dubbo-protocol call
// sends nothing more. Without such keys ctx is returned as is.
func withTripleKeyNames(ctx context.Context, inv base.Invocation) context.Context {
	if inv == nil {
		return ctx
	}
	var names map[string]string
	for k := range inv.Attachments() {
		if strings.ToLower(k) != k {
			if names == nil {
				names = map[string]string{}
			}
			names[strings.ToLower(k)] = k
		}
	}
	if names == nil {
		return ctx
	}
	out := tri.ExtractFromOutgoingContext(ctx)
	if out.Get(TripleHeaderConvert) != "" {
		return ctx // the application's own
	}
	js, err := json.Marshal(names)
	if err != nil {
		return ctx
	}
	h := make(http.Header, len(out)+1)
	for k, v := range out {
		h[k] = v
	}
	h.Set(TripleHeaderConvert, url.QueryEscape(string(js)))
	return tri.NewOutgoingContext(ctx, h)
}
