// Package e2e runs real Kubernetes clients against cmd/fakeapi: kubectl
// (the binary at /usr/bin/kubectl) and client-go's own SharedInformer. It
// is a separate Go module so that client-go never enters the main module's
// go.mod; the main module is used through a replace directive.
//
//	kubectl ----------------+
//	client-go informer -----+--> HTTP, JSON --> cmd/fakeapi (a real process, 127.0.0.1:random)
//	admin fault endpoints --+
//
// # How it works
//
//  1. TestMain builds cmd/fakeapi once (with -race when the tests run with
//     -race) into a temporary directory.
//  2. Each test starts its own fakeapi process on 127.0.0.1 with port 0,
//     reads the URL it prints, writes a kubeconfig with --write-kubeconfig,
//     and polls /readyz until it answers (with a deadline, never a fixed
//     sleep). The test's cleanup sends SIGTERM and requires a clean exit.
//  3. kubectl runs with that kubeconfig and a fresh --cache-dir per test.
//     No --validate=false: fakeapi serves OpenAPI v3, and kubectl leaves
//     field validation to it (fieldValidation=Strict).
//  4. client-go clients use rest.Config{Host, BearerToken, ContentType:
//     "application/json"}: fakeapi speaks JSON only, and client-go's typed
//     clientsets otherwise send protobuf.
//
// A missing kubectl or go toolchain is a test failure, not a skip: CI must
// provide both.
//
// Run with: cd e2e && go test -race ./...
package e2e
