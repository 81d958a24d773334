package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// Client is a client certificate written to files, and the CA that signed
// it: what a server that authenticates its callers trusts (CAFile), and what
// a caller presents (CertFile and KeyFile, or Certificate).
type Client struct {
	// CAFile is the CA certificate, PEM: a server's client CA.
	CAFile string
	// CertFile and KeyFile are the PEM client certificate and key.
	CertFile, KeyFile string
	// Certificate is the same pair, loaded: a tls.Config's Certificates.
	Certificate tls.Certificate
}

// WriteClient makes a CA and a client certificate for commonName signed by
// it, and writes them into dir as client-ca.crt, client.crt and
// client.key, replacing what is there.
func WriteClient(dir, commonName string) (Client, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Client{}, err
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "testcert client CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return Client{}, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Client{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Client{}, err
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: commonName},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		return Client{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Client{}, err
	}
	c := Client{CAFile: filepath.Join(dir, "client-ca.crt"), CertFile: filepath.Join(dir, "client.crt"), KeyFile: filepath.Join(dir, "client.key")}
	for _, f := range []struct {
		path string
		pem  *pem.Block
	}{
		{c.CAFile, &pem.Block{Type: "CERTIFICATE", Bytes: caDER}},
		{c.CertFile, &pem.Block{Type: "CERTIFICATE", Bytes: leafDER}},
		{c.KeyFile, &pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}},
	} {
		if err := os.WriteFile(f.path, pem.EncodeToMemory(f.pem), 0o600); err != nil {
			return Client{}, fmt.Errorf("testcert: %w", err)
		}
	}
	if c.Certificate, err = tls.LoadX509KeyPair(c.CertFile, c.KeyFile); err != nil {
		return Client{}, fmt.Errorf("testcert: %w", err)
	}
	return c, nil
}
