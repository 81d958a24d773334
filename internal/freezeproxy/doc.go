// Package freezeproxy is a TCP proxy that can freeze the connections it
// carries: after Freeze, every connection open at that moment stays open but
// passes no more bytes in either direction, while new connections work. It
// reproduces what kills informers in production without a word: a NAT table
// or a load balancer that silently forgot a flow, or a proxy that got stuck.
// No FIN, no RST, no error: the client's reads just never return.
//
// The tests use it twice: in-process in front of fakeapi served over TLS and
// HTTP/2 (reflector/frozen_connection_test.go), and in front of a real
// kube-apiserver (e2e/controlplane/reflectortest), to show that the client's
// HTTP/2 health check (client.HealthCheck) closes the dead connection and the
// Reflector recovers on a new one.
//
// It is test machinery, not part of the informer pipeline.
package freezeproxy
