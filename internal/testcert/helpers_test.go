package testcert_test

import (
	"crypto/x509"

	"github.com/informerlab/informerlab/internal/testcert"
)

func x509VerifyOptions(p testcert.Pair) x509.VerifyOptions {
	return x509.VerifyOptions{Roots: p.Pool, DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
}
