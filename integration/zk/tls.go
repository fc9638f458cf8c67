package zk

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// storePassword protects the test keystore and truststore. The keys are
// made for one server run, in its directory, and removed with it.
const storePassword = "dubboroute-test"

// TLSAddr is the TLS client address, 127.0.0.1:<secureClientPort> (empty
// without Options.TLS).
func (s *Server) TLSAddr() string {
	if s.tlsPort == 0 {
		return ""
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.tlsPort))
}

// CAFile is the PEM file of the server's self-signed certificate, the CA a
// Go client trusts.
func (s *Server) CAFile() string { return filepath.Join(s.dir, "conf", "ca.pem") }

// TrustStore is the PKCS12 truststore holding the server's certificate and
// its password, for a Java client's zookeeper.ssl.trustStore.* properties.
func (s *Server) TrustStore() (path, password string) {
	return filepath.Join(s.dir, "conf", "trust.p12"), storePassword
}

func (s *Server) keyStore() string { return filepath.Join(s.dir, "conf", "server.p12") }

// makeKeys makes a self-signed server key pair for 127.0.0.1 and localhost
// with keytool (next to the java binary, else on PATH), its PEM
// certificate and a truststore with it.
func (s *Server) makeKeys() error {
	keytool := filepath.Join(filepath.Dir(s.opts.Java), "keytool")
	if _, err := os.Stat(keytool); err != nil {
		if keytool, err = exec.LookPath("keytool"); err != nil {
			return fmt.Errorf("zookeeper: TLS keys: no keytool next to %s or on PATH: %w", s.opts.Java, err)
		}
	}
	run := func(args ...string) error {
		out, err := exec.Command(keytool, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("zookeeper: keytool %s: %v\n%s", args[0], err, out)
		}
		return nil
	}
	trust, _ := s.TrustStore()
	for _, f := range []string{s.keyStore(), s.CAFile(), trust} {
		_ = os.Remove(f)
	}
	if err := run("-genkeypair", "-alias", "zk", "-keyalg", "EC", "-keysize", "256", "-validity", "2",
		"-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
		"-storetype", "PKCS12", "-keystore", s.keyStore(), "-storepass", storePassword, "-keypass", storePassword); err != nil {
		return err
	}
	if err := run("-exportcert", "-alias", "zk", "-rfc", "-file", s.CAFile(), "-keystore", s.keyStore(), "-storepass", storePassword); err != nil {
		return err
	}
	return run("-importcert", "-noprompt", "-alias", "zk", "-file", s.CAFile(),
		"-storetype", "PKCS12", "-keystore", trust, "-storepass", storePassword)
}

// tlsConfig is the zoo.cfg part of the TLS client port: Netty's connection
// factory (the NIO one has no TLS), the keystore, and no client
// certificate required.
func (s *Server) tlsConfig() string {
	trust, _ := s.TrustStore()
	return strings.Join([]string{
		"secureClientPort=" + strconv.Itoa(s.tlsPort),
		"secureClientPortAddress=127.0.0.1",
		"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
		"ssl.keyStore.location=" + s.keyStore(),
		"ssl.keyStore.password=" + storePassword,
		"ssl.keyStore.type=PKCS12",
		"ssl.trustStore.location=" + trust,
		"ssl.trustStore.password=" + storePassword,
		"ssl.trustStore.type=PKCS12",
		"ssl.clientAuth=none",
		"",
	}, "\n")
}

// debianNettyJars are the Netty jars NettyServerCnxnFactory needs beyond
// those the Debian zookeeper.jar manifest lists.
var debianNettyJars = []string{"netty-codec.jar", "netty-resolver.jar", "netty-transport-native-unix-common.jar"}
