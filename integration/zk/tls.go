package zk

import (
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TLSAddr is the TLS client address, 127.0.0.1:<secureClientPort> (empty
// without Options.TLS).
func (s *Server) TLSAddr() string {
	if s.tlsPort == 0 {
		return ""
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.tlsPort))
}

// CAFile is the PEM file of the server's self-signed certificate: the CA
// a Go client trusts, and a Java client's truststore of type PEM
// (zookeeper.ssl.trustStore.location, zookeeper.ssl.trustStore.type=PEM).
func (s *Server) CAFile() string { return filepath.Join(s.dir, "conf", "ca.pem") }

// keyStore is the server's PEM keystore: its private key and certificate.
func (s *Server) keyStore() string { return filepath.Join(s.dir, "conf", "server.pem") }

// makeKeys makes a self-signed ECDSA P-256 certificate for 127.0.0.1 and
// localhost, valid for two days, in the server's directory (removed with
// it): the server's PEM keystore and the CA file. Made in Go rather than
// with keytool: three keytool JVMs cost seconds on a loaded machine, and
// ZooKeeper 3.5.6+ reads PEM key and trust stores.
func (s *Server) makeKeys() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("zookeeper: TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return fmt.Errorf("zookeeper: TLS serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "localhost", Organization: []string{"dubboroute test ZooKeeper"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(48 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("zookeeper: TLS certificate: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("zookeeper: TLS key: %w", err)
	}
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	if err := os.WriteFile(s.keyStore(), append(keyPEM, cert...), 0o600); err != nil {
		return fmt.Errorf("zookeeper: write %s: %w", s.keyStore(), err)
	}
	if err := os.WriteFile(s.CAFile(), cert, 0o644); err != nil {
		return fmt.Errorf("zookeeper: write %s: %w", s.CAFile(), err)
	}
	return nil
}

// tlsServing reports whether the TLS port completes a handshake with a
// client trusting CAFile (Netty's port opens after the plain one, and its
// first handshake is slow on a cold JVM: waiting for it here keeps the
// clients' own connect timeouts meaningful).
func (s *Server) tlsServing() bool {
	pem, err := os.ReadFile(s.CAFile())
	if err != nil {
		return false
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	d := &net.Dialer{Timeout: 10 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", s.TLSAddr(), &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// tlsConfig is the zoo.cfg part of the TLS client port: Netty's connection
// factory (the NIO one has no TLS), the PEM keystore, and no client
// certificate required.
func (s *Server) tlsConfig() string {
	return strings.Join([]string{
		"secureClientPort=" + strconv.Itoa(s.tlsPort),
		"secureClientPortAddress=127.0.0.1",
		"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
		"ssl.keyStore.location=" + s.keyStore(),
		"ssl.keyStore.type=PEM",
		"ssl.trustStore.location=" + s.CAFile(),
		"ssl.trustStore.type=PEM",
		"ssl.clientAuth=none",
		"",
	}, "\n")
}

// debianNettyJars are the Netty jars NettyServerCnxnFactory needs beyond
// those the Debian zookeeper.jar manifest lists.
var debianNettyJars = []string{"netty-codec.jar", "netty-resolver.jar", "netty-transport-native-unix-common.jar"}
