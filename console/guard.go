package console

import (
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Defaults of the console's request limits (Options fields left zero).
const (
	// DefaultMaxConcurrent is how many what-if requests (api/whatif, or the
	// page with a what-if query) are answered at once; more get 503.
	DefaultMaxConcurrent = 2
	// DefaultTimeout bounds the time one request may take, reading the
	// process state and enumerating outcomes included; a request that takes
	// longer is answered 503.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxOutcomeAddresses bounds the provider addresses listed per
	// what-if outcome (a v3.1 rule can have 4,096 outcomes, each naming
	// its eligible providers); the rest are counted in one "+N more" entry.
	DefaultMaxOutcomeAddresses = 32
	// MaxQueryBytes bounds a request's query string.
	MaxQueryBytes = 16 << 10
	// MaxQueryValues bounds a what-if's arguments plus attachments.
	MaxQueryValues = 64
)

// Redacted replaces every secret the console would show: the value of a
// credential-like URL parameter and a URL's userinfo.
const Redacted = "[redacted]"

// guard is what every request passes before the console reads anything:
// the method (read-only), the caller (loopback unless AllowRemote, however
// the console is mounted), the Host header (against DNS rebinding) and the
// size of the query.
func (c *Console) guard(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "the dubboroute console is read-only", http.StatusMethodNotAllowed)
		return false
	}
	if !c.opts.AllowRemote && !loopbackPeer(r.RemoteAddr) {
		http.Error(w, "the dubboroute console answers loopback callers only (Options.AllowRemote)", http.StatusForbidden)
		return false
	}
	if !c.hostAllowed(r) {
		// A page of another origin whose name was re-bound to this
		// address (DNS rebinding) sends its own name as Host.
		http.Error(w, "the dubboroute console does not answer for host "+strconv.Quote(r.Host)+" (allowed: loopback addresses, localhost and Options.Hosts)", http.StatusMisdirectedRequest)
		return false
	}
	if len(r.URL.RawQuery) > MaxQueryBytes {
		http.Error(w, "the dubboroute console: query longer than "+strconv.Itoa(MaxQueryBytes)+" bytes", http.StatusRequestURITooLong)
		return false
	}
	return true
}

// loopbackPeer reports whether a request's RemoteAddr is a loopback
// address.
func loopbackPeer(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostAllowed reports whether the request's Host names this console: a
// loopback IP, localhost (or a name under .localhost, which resolvers
// must keep on loopback), a name of Options.Hosts, or the IP address the
// connection was accepted on (an IP literal cannot be re-bound).
func (c *Console) hostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsLoopback() {
		return true
	}
	for _, h := range c.opts.Hosts {
		if strings.EqualFold(strings.TrimSuffix(h, "."), host) {
			return true
		}
	}
	if ip != nil {
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			if ta, ok := la.(*net.TCPAddr); ok && ta.IP.Equal(ip) {
				return true
			}
		}
	}
	return false
}

// acquire takes one of the what-if slots, or answers 503.
func (c *Console) acquire(w http.ResponseWriter) bool {
	select {
	case c.slots <- struct{}{}:
		return true
	default:
		w.Header().Set("Retry-After", "1")
		http.Error(w, "the dubboroute console: too many what-if requests at once (Options.MaxConcurrent "+strconv.Itoa(cap(c.slots))+")", http.StatusServiceUnavailable)
		return false
	}
}

func (c *Console) release() { <-c.slots }

// sensitiveWords mark a URL parameter whose value is a secret: a key
// containing one of them (case-insensitive, ignoring '.', '-' and '_').
var sensitiveWords = []string{"password", "passwd", "pwd", "secret", "token", "credential", "auth", "apikey",
	"accesskey", "privatekey", "signature", "cookie", "session", "bearer", "passphrase"}

// sensitiveKeys are short keys that are secrets only as a whole word.
var sensitiveKeys = map[string]bool{"ak": true, "sk": true, "key": true, "sign": true, "pass": true}

// SensitiveParam reports whether the console redacts a URL parameter.
func SensitiveParam(key string) bool {
	k := strings.ToLower(key)
	if i := strings.LastIndexAny(k, "."); i >= 0 && sensitiveKeys[k[i+1:]] {
		return true
	}
	if sensitiveKeys[k] {
		return true
	}
	k = strings.NewReplacer(".", "", "-", "", "_", "").Replace(k)
	for _, w := range sensitiveWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// RedactURL returns a URL string (a dubbo URL as common.URL.String writes
// it, or any scheme://...) with its userinfo and the values of its
// credential-like parameters replaced by Redacted. Parameters are matched
// by their decoded key, in the query and in an encoded URL nested in a
// parameter (a registry URL's refer/export).
func RedactURL(s string) string {
	if s == "" {
		return s
	}
	base, query, hasQuery := strings.Cut(s, "?")
	base = redactUserinfo(base)
	if !hasQuery {
		return base
	}
	frag := ""
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query, frag = query[:i], query[i:]
	}
	return base + "?" + redactQuery(query, 0) + frag
}

// redactQuery redacts a query string's sensitive values, and those of a
// query or URL encoded in a value (depth bounds the nesting).
func redactQuery(query string, depth int) string {
	parts := strings.Split(query, "&")
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		dk, err := url.QueryUnescape(k)
		if err != nil {
			dk = k
		}
		switch {
		case SensitiveParam(dk):
			if ok {
				parts[i] = k + "=" + Redacted
			}
		case ok && depth < 3 && strings.Contains(strings.ToUpper(v), "%3D"):
			// A nested URL or query (refer=..., export=...).
			dv, err := url.QueryUnescape(v)
			if err != nil {
				continue
			}
			var r string
			if b, q, has := strings.Cut(dv, "?"); has {
				r = redactUserinfo(b) + "?" + redactQuery(q, depth+1)
			} else {
				r = redactQuery(dv, depth+1)
			}
			if r != dv {
				parts[i] = k + "=" + url.QueryEscape(r)
			}
		}
	}
	return strings.Join(parts, "&")
}

func redactUserinfo(base string) string {
	i := strings.Index(base, "://")
	if i < 0 {
		return base
	}
	rest := base[i+3:]
	end := strings.IndexByte(rest, '/')
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return base
	}
	return base[:i+3] + Redacted + rest[at:]
}

// urlInText finds URLs inside free text (error messages).
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)

// redactText redacts every URL inside a text.
func redactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, RedactURL)
}
