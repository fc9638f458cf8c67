package zookeeper

import (
	"context"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// ZooKeeper security: digest authentication, node ACLs and TLS.
//
// Java Dubbo's Curator client, given a registry or config-center URL with
// username:password, authenticates with scheme "digest" and the bytes
// "username:password", and creates every node (parents included) with
// ZooDefs.Ids.CREATOR_ALL_ACL: all permissions for the identities of the
// creating session (an "auth" ACL, which the server turns into
// digest:<user>:<base64(sha1(user:password))>). WithDigest does the same.
//
// ZooKeeper's digest provider accepts any password: a wrong one gives a
// different identity, and the error shows only when a node's ACL refuses
// it (NoAuth). Every operation and watch here reports that as an
// *AuthError naming the server, the node, the operation and the identity.

// ErrNoAuth is ZooKeeper's NoAuth: the node's ACL does not grant the
// session's identities the permission the operation needs. *AuthError
// wraps it.
var ErrNoAuth = zk.ErrNoAuth

// AuthError reports an operation a node's ACL refused.
type AuthError struct {
	Server   string // the ZooKeeper server that answered
	Op       string // read, list, write, create, delete, set ACL
	Path     string // the node
	Identity string // who the client authenticated as
}

// Error implements error.
func (e *AuthError) Error() string {
	acl := e.Path
	if e.Op == "create" || e.Op == "delete" {
		// Creating and deleting a node take the parent's permission.
		if i := strings.LastIndex(e.Path, "/"); i > 0 {
			acl = e.Path[:i]
		}
	}
	return fmt.Sprintf("zookeeper %s: %s %s as %s: not authorized (NoAuth): the ACL of %s does not grant this identity the permission; check the credentials (registry URL username:password) and that ACL (zkCli getAcl %s)",
		e.Server, e.Op, e.Path, e.Identity, acl, acl)
}

// Unwrap makes errors.Is(err, ErrNoAuth) hold.
func (e *AuthError) Unwrap() error { return zk.ErrNoAuth }

// WithACL sets the ACL of the nodes this client creates (rules, missing
// parents, re-created ephemeral nodes). Default: Dubbo's CREATOR_ALL_ACL
// with WithDigest, else world:anyone with all permissions. ParseACL reads
// zkCli's notation.
func WithACL(acl []zk.ACL) Option {
	return func(o *options) { o.acl = append([]zk.ACL(nil), acl...) }
}

// WithTLS makes the client connect with TLS (ZooKeeper 3.5+'s
// secureClientPort). A config without ServerName verifies the server's
// certificate against the host of each address dialed.
func WithTLS(cfg *tls.Config) Option { return func(o *options) { o.tls = cfg } }

// WithTLSFiles is WithTLS with the configuration TLSConfig builds from f
// when Dial runs; Dial fails if the files do not load.
func WithTLSFiles(f TLSFiles) Option { return func(o *options) { o.tlsFiles = &f } }

// TLSFiles name the PEM files of a TLS client.
type TLSFiles struct {
	CA         string // CA certificates the server's certificate must chain to; empty: the system pool
	Cert, Key  string // client certificate and key (ZooKeeper's ssl.clientAuth=need); both or neither
	ServerName string // the name to verify the server's certificate against; empty: the dialed host
}

// TLSConfig builds a client TLS configuration from f (TLS 1.2 at least).
func TLSConfig(f TLSFiles) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: f.ServerName}
	if f.CA != "" {
		pem, err := os.ReadFile(f.CA)
		if err != nil {
			return nil, fmt.Errorf("zookeeper tls: CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("zookeeper tls: CA file %s: no PEM certificate in it", f.CA)
		}
		cfg.RootCAs = pool
	}
	if (f.Cert == "") != (f.Key == "") {
		return nil, errors.New("zookeeper tls: a client certificate needs both the certificate and the key file")
	}
	if f.Cert != "" {
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("zookeeper tls: client certificate %s / key %s: %w", f.Cert, f.Key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// DialTLS dials address and completes a TLS handshake within timeout; a
// cfg without ServerName verifies the certificate against address's host.
func DialTLS(cfg *tls.Config, network, address string, timeout time.Duration) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout}
	raw, err := d.Dial(network, address)
	if err != nil {
		return nil, err
	}
	c := cfg
	if c.ServerName == "" {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			raw.Close()
			return nil, err
		}
		c = cfg.Clone()
		c.ServerName = host
	}
	conn := tls.Client(raw, c)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, fmt.Errorf("tls handshake with %s: %w", address, err)
	}
	return conn, nil
}

// DigestID is the id ZooKeeper's digest scheme gives user:password,
// user:base64(sha1("user:password")), as in a "digest:<id>:<perms>" ACL.
func DigestID(user, password string) string {
	sum := sha1.Sum([]byte(user + ":" + password))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// CreatorACL is Dubbo's (ZooKeeper's) CREATOR_ALL_ACL: every permission
// for the identities of the creating session.
func CreatorACL() []zk.ACL { return zk.AuthACL(zk.PermAll) }

// ParseACL reads an ACL in zkCli's notation: comma-separated
// scheme:id:perms entries, perms from "cdrwa" (create, delete, read, write,
// admin). Examples: "world:anyone:r,auth::cdrwa" (world-readable, all for
// the creator), "digest:admin:<base64 sha1>:cdrwa" (see DigestID),
// "ip:127.0.0.1:rw". The id of a digest entry is user:hash, so the last
// colon separates the permissions.
func ParseACL(spec string) ([]zk.ACL, error) {
	var out []zk.ACL
	for _, e := range strings.Split(spec, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		scheme, rest, ok := strings.Cut(e, ":")
		last := strings.LastIndex(rest, ":")
		if !ok || scheme == "" || last < 0 {
			return nil, fmt.Errorf("acl entry %q: want scheme:id:perms (e.g. world:anyone:r)", e)
		}
		id, permText := rest[:last], rest[last+1:]
		perms, err := parsePerms(permText)
		if err != nil {
			return nil, fmt.Errorf("acl entry %q: %w", e, err)
		}
		switch scheme {
		case "world":
			if id != "anyone" {
				return nil, fmt.Errorf("acl entry %q: the world scheme's only id is anyone", e)
			}
		case "auth":
			// id ignored by the server: the creating session's identities
		case "digest":
			if u, h, ok := strings.Cut(id, ":"); !ok || u == "" || h == "" {
				return nil, fmt.Errorf("acl entry %q: a digest id is user:base64(sha1(user:password))", e)
			}
		case "ip", "x509", "sasl", "super":
			if id == "" {
				return nil, fmt.Errorf("acl entry %q: empty id", e)
			}
		default:
			return nil, fmt.Errorf("acl entry %q: unknown scheme %q (world, auth, digest, ip, x509, sasl)", e, scheme)
		}
		out = append(out, zk.ACL{Scheme: scheme, ID: id, Perms: perms})
	}
	if len(out) == 0 {
		return nil, errors.New("empty ACL")
	}
	return out, nil
}

func parsePerms(s string) (int32, error) {
	var p int32
	for _, r := range s {
		switch r {
		case 'c':
			p |= zk.PermCreate
		case 'd':
			p |= zk.PermDelete
		case 'r':
			p |= zk.PermRead
		case 'w':
			p |= zk.PermWrite
		case 'a':
			p |= zk.PermAdmin
		default:
			return 0, fmt.Errorf("permission %q is not one of c, d, r, w, a", r)
		}
	}
	if p == 0 {
		return 0, errors.New("no permission")
	}
	return p, nil
}

// FormatACL writes acl in zkCli's notation (ParseACL's inverse).
func FormatACL(acl []zk.ACL) string {
	parts := make([]string, len(acl))
	for i, a := range acl {
		perms := ""
		for _, p := range []struct {
			bit int32
			c   string
		}{{zk.PermCreate, "c"}, {zk.PermDelete, "d"}, {zk.PermRead, "r"}, {zk.PermWrite, "w"}, {zk.PermAdmin, "a"}} {
			if a.Perms&p.bit != 0 {
				perms += p.c
			}
		}
		parts[i] = a.Scheme + ":" + a.ID + ":" + perms
	}
	return strings.Join(parts, ",")
}

// Identity describes who the client is to ZooKeeper, for error messages:
// its digest user and whether it presents a TLS client certificate.
func (c *Client) Identity() string {
	who := "anonymous (no credentials: world:anyone)"
	if c.opts.digest != "" {
		user, _, _ := strings.Cut(c.opts.digest, ":")
		who = "digest user " + strconv.Quote(user)
	}
	if c.opts.tls != nil && len(c.opts.tls.Certificates) > 0 {
		who += " with a TLS client certificate"
	}
	return who
}

// authErr turns a NoAuth from op on path into an *AuthError; other errors
// pass unchanged.
func (c *Client) authErr(op, path string, err error) error {
	if !errors.Is(err, zk.ErrNoAuth) {
		return err
	}
	server := ""
	if c.conn != nil {
		server = c.conn.Server()
	}
	if server == "" {
		server = strings.Join(c.addrs, ",")
	}
	return &AuthError{Server: server, Op: op, Path: path, Identity: c.Identity()}
}

// GetACL reads a node's ACL.
func (c *Client) GetACL(ctx context.Context, path string) ([]zk.ACL, error) {
	acl, _, err := read(ctx, c, "read the ACL of", path, (*zk.Conn).GetACL)
	if err != nil {
		return nil, opError("get acl", path, err)
	}
	return acl, nil
}

// SetACL replaces a node's ACL (it needs the admin permission).
func (c *Client) SetACL(ctx context.Context, path string, acl []zk.ACL) error {
	err := c.do(ctx, func() error {
		_, err := c.conn.SetACL(path, acl, -1)
		return c.authErr("set the ACL of", path, err)
	})
	return opError("set acl", path, err)
}

// Children lists a node's children (it needs the read permission). A
// missing node gives an error wrapping ErrNotFound; a refused read an
// *AuthError.
func (c *Client) Children(ctx context.Context, path string) ([]string, error) {
	children, _, err := read(ctx, c, "list", path, (*zk.Conn).Children)
	if err != nil {
		return nil, opError("list", path, err)
	}
	return children, nil
}

// EnsurePath creates path and its missing ancestors as persistent empty
// nodes with the client's ACL; existing nodes are left as they are.
func (c *Client) EnsurePath(ctx context.Context, path string) error {
	err := c.do(ctx, func() error {
		if err := c.createParents(path + "/x"); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("zookeeper: ensure %s: %w", path, err)
	}
	return nil
}

// worldWritable reports an ACL that lets anyone write or delete.
func worldWritable(acl []zk.ACL) bool {
	for _, a := range acl {
		if a.Scheme == "world" && a.ID == "anyone" && a.Perms&(zk.PermWrite|zk.PermDelete|zk.PermAdmin) != 0 {
			return true
		}
	}
	return false
}
