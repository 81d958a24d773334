// Package sameorigin keeps web pages of other sites away from the local
// servers of this project: the page of `demo --web` and cmd/fakeapi. It
// stands in front of the "Kubernetes API" box of the diagram and of the
// page that draws it, not inside the pipeline.
//
//	browser tab on evil.example ---X
//	browser tab on this server's page -----+
//	kubectl, client-go, curl ---------------+--> Guard.Handler --> the server's handler
//
// A server on 127.0.0.1 is out of reach of other machines, but not of the
// pages open in the learner's browser: the browser runs their scripts on
// this machine. Two attacks need no bug in the browser:
//
//   - Cross-site requests. A page may POST to any address with a form, or
//     with fetch(url, {mode: "no-cors"}). It cannot read the answer, but
//     the request arrives and does its work: it creates a Foo, deletes one,
//     or injects a fault.
//   - DNS rebinding. A page of evil.example makes its own name resolve to
//     127.0.0.1; its scripts then read the local server as "evil.example",
//     the same origin as themselves, answers included.
//
// # How it works
//
// [Guard.Check] looks at each request in turn:
//
//  1. Host must name this server: the listening address, a loopback form
//     of it (localhost, 127.0.0.1, [::1]) with the same port, a name given
//     in [Options.Hosts], or, for a server listening on every interface,
//     the address of one of them. A rebinding page's requests carry its
//     own name, so they stop here, reads included.
//  2. GET, HEAD and OPTIONS go on. Anything else changes state and must
//     pass steps 3 to 5.
//  3. Sec-Fetch-Site, when sent (browsers do), must be same-origin or
//     none: a page on another port of 127.0.0.1 is "same-site", not
//     same-origin, and is refused.
//  4. Origin, when sent (browsers do on every POST, PUT, PATCH and
//     DELETE), must be this page's own scheme://host:port, as in Host.
//     kubectl and client-go send none.
//  5. Content-Type must be one of [Options.ContentTypes] (JSON by
//     default; [KubernetesTypes] for an API server). A form or a
//     fetch without the browser's permission can only send text/plain, a
//     form encoding or no type at all; any other type makes the browser
//     ask the server first (a CORS preflight), which these servers never
//     grant. A DELETE may have no body and no type: a browser asks first
//     for every DELETE.
//
// A refused request gets a 403 whose body is one line saying which rule
// it broke ([Options.Refuse] chooses the shape: plain text, the page's
// JSON, a Kubernetes Status).
//
// # Guarantees
//
//   - A request the guard refuses never reaches the wrapped handler.
//   - Programs that name the server as they connect to it (kubectl,
//     client-go, curl with a JSON Content-Type) pass unchanged.
//   - A Guard never changes after [New] and is safe for concurrent use.
//
// # Differences from client-go
//
// client-go and kube-apiserver have nothing like it: a real API server
// trusts no request without credentials, and a browser does not hold
// them. These servers run without authentication by default, so the
// guard stands where a credential would. The demo's page adds one: a
// per-run token in the page that its script sends with every control,
// which a page of another site cannot read (package internal/pipelineweb).
// net/http's CrossOriginProtection covers steps 3 and 4; steps 1 and 5
// are what it leaves open (DNS rebinding, older browsers).
//
// # Read next
//
// The Example, then docs/fakeapi.md's and docs/README.md's Security
// paragraphs. The chromium tests in e2e (cd e2e && go test -run Cross ./...)
// make the attacks from a real page of another origin.
package sameorigin
