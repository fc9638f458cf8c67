package router

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// URL is a Dubbo URL parsed once: protocol://[user[:password]@]host[:port]/path?k=v&...
//
// Get follows Java Dubbo's URL.toOriginalMap: every parameter, plus the
// synthetic keys protocol, username, password, host, path, port (only when the
// port is positive) and address (host:port, or host alone without a port).
type URL struct {
	Protocol string
	Username string
	Password string
	Host     string
	Port     int
	Path     string
	// Params are the URL's own parameters, values as written (not decoded).
	// They also hold the text a parsed URL came from (Raw): a chain keeps
	// a URL per provider, and 16 bytes more would cost each one a size
	// class.
	Params Params
}

// ParseURL parses a Dubbo URL as Java's URL.valueOf does for an already
// decoded string. Parameter values are taken as they are written.
func ParseURL(s string) (*URL, error) {
	raw := s
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("parse url: empty")
	}
	u := &URL{Params: Params{x: &paramsX{raw: raw}}}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		for _, kv := range strings.Split(s[i+1:], "&") {
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				// Java stores a bare key as key=key.
				v = k
			}
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			u.Params.Set(k, v)
		}
		s = s[:i]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		if i == 0 {
			return nil, fmt.Errorf("parse url %q: missing protocol", raw)
		}
		u.Protocol = s[:i]
		s = s[i+3:]
	} else if i := strings.Index(s, ":/"); i >= 0 {
		// file:/path style; Java's URL.valueOf refuses ":/" at the start
		// as it does "://" (found by FuzzParseURL: ":/x" was taken with an
		// empty protocol).
		if i == 0 {
			return nil, fmt.Errorf("parse url %q: missing protocol", raw)
		}
		u.Protocol = s[:i]
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		u.Path = s[i+1:]
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		cred := s[:i]
		s = s[i+1:]
		if user, pass, ok := strings.Cut(cred, ":"); ok {
			u.Username, u.Password = user, pass
		} else {
			u.Username = cred
		}
	}
	host, port := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return nil, fmt.Errorf("parse url %q: unterminated IPv6 host", raw)
		}
		host = s[:end+1]
		rest := s[end+1:]
		if strings.HasPrefix(rest, ":") {
			port = rest[1:]
		} else if rest != "" {
			return nil, fmt.Errorf("parse url %q: junk %q after IPv6 host", raw, rest)
		}
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 && strings.Count(s, ":") == 1 {
		host, port = s[:i], s[i+1:]
	}
	if port != "" {
		p, err := strconv.Atoi(port)
		if err != nil || p < 0 || p > 65535 {
			return nil, fmt.Errorf("parse url %q: bad port %q", raw, port)
		}
		u.Port = p
	}
	u.Host = host
	return u, nil
}

// ParseEncodedURL URL-decodes s once (as registry nodes and the "rule"
// parameter are stored) and parses the result.
func ParseEncodedURL(s string) (*URL, error) {
	d, err := url.QueryUnescape(s)
	if err != nil {
		return nil, fmt.Errorf("decode url %q: %w", s, err)
	}
	return ParseURL(d)
}

// MustParseURL is ParseURL for literals in tests and examples; it panics on error.
func MustParseURL(s string) *URL {
	u, err := ParseURL(s)
	if err != nil {
		panic(err)
	}
	return u
}

// Address is host:port, or the host alone when the URL has no port.
func (u *URL) Address() string {
	if u.Port > 0 {
		return u.Host + ":" + strconv.Itoa(u.Port)
	}
	return u.Host
}

// IsAddress reports whether s is Address() (without allocating): a caller
// holding the "host:port" text elsewhere (dubbo-go's URL.Location) can use
// it instead of a new string.
func (u *URL) IsAddress(s string) bool {
	if u.Port <= 0 {
		return s == u.Host
	}
	if len(s) <= len(u.Host) || s[:len(u.Host)] != u.Host || s[len(u.Host)] != ':' {
		return false
	}
	var buf [20]byte
	return s[len(u.Host)+1:] == string(strconv.AppendInt(buf[:0], int64(u.Port), 10))
}

// Param returns a URL parameter.
func (u *URL) Param(key string) string { return u.Params.Value(key) }

// Get looks a key up the way Java's URL.toOriginalMap would expose it.
func (u *URL) Get(key string) (string, bool) {
	if v, ok := u.stringField(key); ok {
		return v, v != ""
	}
	switch key {
	case "port":
		if u.Port > 0 {
			return strconv.Itoa(u.Port), true
		}
		// Java's map has no port key for port 0, but a URL parameter of that
		// name would be in it.
	case "address":
		if u.Host == "" && u.Port <= 0 {
			break
		}
		return u.Address(), true
	}
	return u.Params.Get(key)
}

// RawParameter is Java's URL.getRawParameter, used for $ references: the
// fields protocol, username, password, host, port ("0" without a port) and
// path, else the parameter.
func (u *URL) RawParameter(key string) (string, bool) {
	if v, ok := u.stringField(key); ok {
		return v, v != ""
	}
	if key == "port" {
		return strconv.Itoa(u.Port), true
	}
	return u.Params.Get(key)
}

// stringField is the string field Java names key (protocol, username,
// password, host, path); ok is false for any other key.
func (u *URL) stringField(key string) (v string, ok bool) {
	switch key {
	case "protocol":
		return u.Protocol, true
	case "username":
		return u.Username, true
	case "password":
		return u.Password, true
	case "host":
		return u.Host, true
	case "path":
		return u.Path, true
	}
	return "", false
}

// Application is the URL's application parameter.
func (u *URL) Application() string { return u.Params.Value("application") }

// Interface is the interface parameter, else the path.
func (u *URL) Interface() string {
	if v := u.Params.Value("interface"); v != "" {
		return v
	}
	return u.Path
}

// ServiceKey is Java's colon-separated rule key: interface:version:group.
func (u *URL) ServiceKey() string {
	return u.Interface() + ":" + u.Params.Value("version") + ":" + u.Params.Value("group")
}

// String renders the URL with parameters in alphabetical order, as Java does.
func (u *URL) String() string {
	var b strings.Builder
	if u.Protocol != "" {
		b.WriteString(u.Protocol)
		b.WriteString("://")
	}
	if u.Username != "" {
		b.WriteString(u.Username)
		if u.Password != "" {
			b.WriteString(":")
			b.WriteString(u.Password)
		}
		b.WriteString("@")
	}
	b.WriteString(u.Address())
	if u.Path != "" {
		b.WriteString("/")
		b.WriteString(u.Path)
	}
	first := true
	for k, v := range u.Params.All() {
		if first {
			b.WriteString("?")
			first = false
		} else {
			b.WriteString("&")
		}
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(v)
	}
	return b.String()
}

// Raw is the text the URL was parsed from (empty for URLs built in code).
// Assigning other Params (ParamsOf, Clone) drops it; Set and Delete keep it.
func (u *URL) Raw() string {
	if u.Params.enc != "" || u.Params.x == nil {
		return ""
	}
	return u.Params.x.raw
}
