// Package e2e runs real Kubernetes clients against cmd/fakeapi: kubectl
// (the binary at /usr/bin/kubectl) and client-go's own SharedInformer; and a
// real browser, chromium (/usr/bin/chromium) driven by chromedp, against the
// web page on both its hosts: cmd/demo --web, and the playground's static
// site (cmd/playground), where the pipeline runs in the tab. It is a separate Go module so that client-go
// and chromedp never enter the main module's go.mod; the main module is used
// through a replace directive.
//
//	kubectl ----------------+
//	client-go informer -----+--> HTTP, JSON --> cmd/fakeapi (a real process, 127.0.0.1:random)
//	admin fault endpoints --+
//	chromium (chromedp) ------> HTTP, SSE ----> cmd/demo --web (a real process, 127.0.0.1:random)
//	chromium (chromedp) ------> http.FileServer --> the playground's site (WebAssembly in the tab)
//
// # How it works
//
//  1. TestMain builds cmd/fakeapi and cmd/demo once (with -race when the
//     tests run with -race) into a temporary directory, and the
//     playground's site with its documented command
//     (go run ./cmd/playground/build -out DIR).
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
//  5. The README's kubectl section is run as written: each of its shell
//     blocks with bash, from the repository root, on the fixed ports it
//     names (which must be free), and the output must hold the lines the
//     README says the reader will see.
//  6. The browser tests (web_test.go) start demo --web on port 0, or serve
//     the playground's folder with a plain http.FileServer, then a headless
//     chromium with a fresh profile and no background networking, press
//     the page's controls and read the page with JavaScript, polling with
//     deadlines. One table of scenarios (webScenarios) runs against both
//     hosts (webHosts). Each check saves a screenshot in its artifact
//     directory (go test -artifacts -outputdir DIR keeps them).
//  7. The playground's own tests (playground_test.go) check, from
//     chromium's network events, that its page requests nothing outside
//     its folder, and print its budgets: the .wasm's size, the time to the
//     first token, the memory in the tab over a run (30s; for ten minutes,
//     INFORMERLAB_PLAYGROUND_SOAK=10m with go test's -timeout 30m); the
//     command is below.
//
// A missing kubectl, chromium or go toolchain is a test failure, not a
// skip: CI must provide them (.ci/run installs chromium when missing).
//
// Run with: cd e2e && go test -race ./...
//
// The playground's budgets, printed: cd e2e && go test -run TestPlaygroundBudgets -v .
package e2e
