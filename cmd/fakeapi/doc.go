// Command fakeapi runs the in-memory Kubernetes API server of package
// fakeapi as a standalone process: the "Kubernetes API" box at the top of
// the diagram, reachable over HTTP by kubectl, by `demo --server` and by
// client-go's own informers.
//
//	kubectl / demo --server / client-go
//	        |  HTTP, Kubernetes wire format (JSON)
//	        v
//	cmd/fakeapi --> fakeapi.Server.Handler --> fakeapi.Server (storage, watches, faults)
//
// # How it works
//
//  1. Flags are parsed; --help prints a description, every flag and examples.
//  2. A [fakeapi.Server] is built with the history window, bookmark interval
//     and token from the flags (--token, or --token-file to keep it out of
//     the process list), logging through slog to stderr (one line per
//     request, per fault, per cut-off watch). With --sample-resources it also
//     serves Foos and Deployments, validated against the sample controller's
//     Go types (a Foo whose spec.replicas is a string is 422 Invalid).
//  3. The listener is opened (127.0.0.1:8080 by default: loopback only, so
//     nothing outside this machine can reach the server unless --addr says
//     otherwise). With --tls it serves https with a self-signed certificate
//     made at start. With --write-kubeconfig, a kubeconfig naming the actual
//     address (useful with port 0), the certificate and the token is
//     written, readable by its owner only (an existing file is narrowed
//     to 0600 before the token goes in).
//  4. The listening URL is printed on stdout, then requests are served,
//     each behind the same-origin guard of package internal/sameorigin: a
//     request must name this server in Host, and a write must come from no
//     web page of another site and carry a JSON or patch Content-Type, so
//     a page open in the learner's browser can neither inject a fault nor
//     write, nor read through a rebound DNS name (403 Forbidden Status).
//     A client has --read-timeout (30s) to send a whole request; watches,
//     whose response is long but whose request is short, are not cut.
//  5. On SIGINT or SIGTERM the listener closes, the fakeapi server is closed
//     (open watches end, so kubectl get -w and informers see the stream end),
//     and in-flight requests get a few seconds to finish.
//
// # Examples
//
//	go run ./cmd/fakeapi --write-kubeconfig /tmp/fakeapi.kubeconfig
//	kubectl --kubeconfig /tmp/fakeapi.kubeconfig --cache-dir /tmp/kubectl-cache get configmaps -w
//	kubectl --kubeconfig /tmp/fakeapi.kubeconfig apply -f configmap.yaml
//	kubectl --kubeconfig /tmp/fakeapi.kubeconfig explain configmap.data
//	curl -X POST -H 'Content-Type: application/json' http://127.0.0.1:8080/admin/faults/compact
//	curl -X POST -H 'Content-Type: application/json' http://127.0.0.1:8080/admin/faults/close-watches
//
// fakeapi serves OpenAPI v3 documents, so kubectl validates create -f and
// apply -f (the server checks fields, fieldValidation=Strict) and explains
// kinds as against a real server. kubectl, like every client client-go builds from
// a kubeconfig, sends a bearer token only to an https server: --token is
// meant to be used with --tls. The fault endpoints under /admin/ are described
// in docs/fakeapi.md.
//
// # Read next
//
// The fakeapi package (what the server models, and each fault), then
// cmd/demo, which connects to this server with --server.
package main
