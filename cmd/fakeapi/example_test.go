package main

import (
	"context"
	"os"
)

// The --help output: what the command is, every flag, and examples.
func Example_help() {
	_ = run(context.Background(), []string{"--help"}, os.Stdout, os.Stderr)
	// Output:
	// fakeapi runs an in-memory Kubernetes API server (package fakeapi) over HTTP,
	// in the Kubernetes wire format: kubectl, client-go informers and demo --server
	// connect to it. It keeps everything in memory and listens on loopback
	// (127.0.0.1) unless --addr says otherwise. Faults are injected through the
	// /admin/ endpoints (docs/fakeapi.md). SIGINT or SIGTERM shuts it down.
	//
	// kubectl and other kubeconfig-based clients send a token only over https:
	// use --tls together with --token or --token-file.
	//
	// Pages of other sites open in your browser cannot use it: a request must
	// name this server in its Host header, and a write must come from no web
	// page (no Origin, as with kubectl and curl) and carry a JSON or Kubernetes
	// patch Content-Type (403 otherwise, whatever the token).
	//
	// Usage:
	//   fakeapi [flags]
	//
	// Flags:
	//   --addr host:port
	//         host:port to listen on; the default is loopback only, port 0 picks a free port (default 127.0.0.1:8080)
	//   --bookmark-interval duration
	//         how often watches that allow bookmarks get a BOOKMARK event; negative disables them (default 1m0s)
	//   --history events
	//         watch history window, in events; a watch from an older resourceVersion gets 410 Expired (default 1000)
	//   --log-level level
	//         log level on stderr: debug, info, warn or error (info logs every request) (default info)
	//   --read-timeout duration
	//         how long a client may take to send a whole request, headers and body; a client that stops mid-request is disconnected (watches are not cut: only their request is timed) (default 30s)
	//   --sample-resources
	//         also serve the sample controller's resources (samplecontroller.k8s.io/v1alpha1 foos, apps/v1 deployments, field types validated), for demo --server
	//   --tls
	//         serve https with a self-signed certificate made at start (the kubeconfig carries it); kubectl sends --token only over https
	//   --token token
	//         bearer token every API request must carry (401 without it); empty means no authentication. Other users of this machine can read a command line (ps): prefer --token-file
	//   --token-file path
	//         read the bearer token from the file at path (surrounding whitespace trimmed) instead of --token
	//   --write-kubeconfig path
	//         write a kubeconfig for this server (URL, certificate, token, context) to path, for kubectl --kubeconfig
	//
	// Examples:
	//   # Serve on 127.0.0.1:8080 and write a kubeconfig for kubectl and demo:
	//   fakeapi --write-kubeconfig /tmp/fakeapi.kubeconfig
	//   kubectl --kubeconfig /tmp/fakeapi.kubeconfig get configmaps -w
	//
	//   # kubectl validates against the OpenAPI documents fakeapi serves:
	//   kubectl --kubeconfig /tmp/fakeapi.kubeconfig apply -f cm.yaml
	//
	//   # https and a token kept out of the command line, a free port, a tiny
	//   # history so 410s come fast:
	//   fakeapi --addr 127.0.0.1:0 --tls --token-file token.txt --history 10 --write-kubeconfig kc.yaml
	//
	//   # Serve Foos and Deployments too, and run the demo's controller against it
	//   # (this server has no Deployment controller: the demo plays it):
	//   fakeapi --sample-resources --write-kubeconfig /tmp/fakeapi.kubeconfig
	//   go run ./cmd/demo --kubeconfig /tmp/fakeapi.kubeconfig --simulate-deployments
	//
	//   # Bookmarks every 5 seconds, debug logging:
	//   fakeapi --bookmark-interval 5s --log-level debug
	//
	//   # Inject a fault: drop the watch history and end every watch, so each
	//   # informer's re-watch gets 410 Expired and it relists:
	//   # (a write says its body is JSON, which no page of another site can send):
	//   curl -X POST -H 'Content-Type: application/json' http://127.0.0.1:8080/admin/faults/compact
	//   curl -X POST -H 'Content-Type: application/json' http://127.0.0.1:8080/admin/faults/close-watches
}
