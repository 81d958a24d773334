package testcert_test

import (
	"crypto/tls"
	"fmt"
	"os"

	"github.com/informerlab/informerlab/internal/testcert"
)

// Write a serving certificate, load it as a server would, and check that a
// client trusting the CA accepts it for 127.0.0.1.
func Example() {
	dir, _ := os.MkdirTemp("", "testcert")
	defer os.RemoveAll(dir)

	pair, err := testcert.Write(dir, 7)
	if err != nil {
		panic(err)
	}
	cert, err := tls.LoadX509KeyPair(pair.CertFile, pair.KeyFile)
	if err != nil {
		panic(err)
	}
	leaf := cert.Leaf
	_, verr := leaf.Verify(x509VerifyOptions(pair))
	fmt.Println("serial:", leaf.SerialNumber, "for:", leaf.IPAddresses[0], "verified:", verr == nil)
	// Output: serial: 7 for: 127.0.0.1 verified: true
}
