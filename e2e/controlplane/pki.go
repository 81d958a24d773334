package controlplane

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is what kube-apiserver needs to serve TLS, authenticate a user and sign
// service-account tokens, written as files into one directory.
type pki struct {
	servingCert string // PEM certificate, self-signed, for 127.0.0.1 and localhost
	servingKey  string // its PEM private key
	caPEM       []byte // the certificate again: clients trust it as their CA
	saKey       string // PEM RSA private key: signs service-account tokens
	saPub       string // its PEM public key: verifies them
	tokenFile   string // CSV: token,user,uid,"group"
	token       string // the admin user's bearer token
}

// adminUser is the user the token authenticates as. It is in system:masters,
// which RBAC allows everything (with the default --authorization-mode of
// AlwaysAllow, every user may do everything anyway).
const adminUser = "informerlab-admin"

// writePKI makes a fresh serving certificate, service-account key pair and
// admin token, and writes them into dir (mode 0600 for the secrets).
func writePKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("controlplane: pki directory: %w", err)
	}
	p := &pki{
		servingCert: filepath.Join(dir, "apiserver.crt"),
		servingKey:  filepath.Join(dir, "apiserver.key"),
		saKey:       filepath.Join(dir, "service-account.key"),
		saPub:       filepath.Join(dir, "service-account.pub"),
		tokenFile:   filepath.Join(dir, "tokens.csv"),
	}

	certPEM, keyPEM, err := selfSignedServingCert()
	if err != nil {
		return nil, err
	}
	p.caPEM = certPEM
	saKeyPEM, saPubPEM, err := serviceAccountKeys()
	if err != nil {
		return nil, err
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	p.token = token
	csv := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n", token, adminUser, adminUser)

	for _, f := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{p.servingCert, certPEM, 0o644},
		{p.servingKey, keyPEM, 0o600},
		{p.saKey, saKeyPEM, 0o600},
		{p.saPub, saPubPEM, 0o644},
		{p.tokenFile, []byte(csv), 0o600},
	} {
		if err := os.WriteFile(f.path, f.data, f.mode); err != nil {
			return nil, fmt.Errorf("controlplane: write %s: %w", f.path, err)
		}
	}
	return p, nil
}

// selfSignedServingCert makes a P-256 key and a certificate for 127.0.0.1 and
// localhost, valid for a week, that signs itself: clients verify the server by
// trusting this very certificate as their CA (the kubeconfig carries it as
// certificate-authority-data). It returns both as PEM.
func selfSignedServingCert() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("controlplane: serving key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, fmt.Errorf("controlplane: serial number: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "kube-apiserver", Organization: []string{"informerlab"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(0, 0, 7),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("controlplane: serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("controlplane: serving key: %w", err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	return certPEM, keyPEM, nil
}

// serviceAccountKeys makes the RSA key pair kube-apiserver signs and verifies
// service-account tokens with (--service-account-signing-key-file and
// --service-account-key-file; it refuses to start without them).
func serviceAccountKeys() (keyPEM, pubPEM []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, fmt.Errorf("controlplane: service-account key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, nil, fmt.Errorf("controlplane: service-account key: %w", err)
	}
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pubPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	return keyPEM, pubPEM, nil
}

// randomToken is 32 random bytes in hex.
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("controlplane: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
