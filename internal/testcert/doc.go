// Package testcert writes TLS certificates for tests: a CA and a serving
// certificate it signs for 127.0.0.1, as an API server expects of an
// admission webhook (it verifies the webhook against the CA bundle of the
// webhook's configuration), and a CA and a client certificate it signs, as
// a webhook that authenticates the API server expects of its caller.
//
//	dir/tls.crt, dir/tls.key            the serving certificate and its key (PEM)
//	Pair.CAPEM, Pair.Pool               the CA, as a caBundle and as a client's RootCAs
//	dir/client.crt, dir/client.key      a client certificate and its key (WriteClient)
//	dir/client-ca.crt                   its CA, as a server's client CA
//
// Each call makes new keys; nothing is cached. It is for tests only: the keys
// are P-256 and the certificates live a day.
//
// # Read next
//
// Run the Example (go test ./internal/testcert -run Example -v); the
// controller package's webhook tests use it.
package testcert
