// Package client talks to a real Kubernetes API server (or to fakeapi over HTTP): it is
// the real-API side of diagram step 1 (List & Watch), plus the writes a controller makes.
//
//	kube-apiserver | fakeapi over HTTP
//	      ^
//	      | 1 List & Watch     GET .../configmaps?resourceVersion=0
//	      |                    GET .../configmaps?watch=true&resourceVersion=N&allowWatchBookmarks=true
//	 ResourceClient  (a reflector.ListerWatcher as it stands)
//	      |
//	 Reflector
//
// # How it works
//
//  1. A [Config] says where the server is and how to trust and authenticate to it. Make
//     one from a URL ([ConfigFromURL]) or from a kubeconfig's current context
//     ([LoadKubeconfig]): server, certificate-authority(-data), client-certificate and
//     client-key(-data), token or tokenFile, tls-server-name, insecure-skip-tls-verify.
//  2. [New] builds a [Client] from it and a *runtime.Scheme. [Client.Resource] returns a
//     [ResourceClient] for one group/version/resource; [ResourceClient.Namespace] scopes it.
//     Paths are /api/v1/... for the core group and /apis/group/version/... otherwise, with
//     /namespaces/ns/ when a namespace is set.
//  3. Every request asks for JSON (Accept: application/json) and sends JSON
//     (Content-Type: application/json; a patch sends its own media type, normally
//     application/merge-patch+json).
//  4. Responses decode into the Go type the scheme registers for their kind, else into
//     unstructured objects, case-sensitively as the API server decodes them
//     (internal/kubejson). List items carry no kind or apiVersion on the wire, so each
//     item gets the list's apiVersion and the list's kind without "List".
//  5. A non-2xx response becomes an *apierrors.StatusError: the server's own
//     metav1.Status if the body is one, else a generic one built from the status code.
//  6. [ResourceClient.Watch] opens GET ...?watch=true, checks for 200 and
//     application/json, and starts one goroutine that decodes the stream (one JSON event
//     per line) into ResultChan until the stream ends, the context is cancelled, or
//     Stop is called.
//
// # Guarantees
//
//   - [Client] and [ResourceClient] are safe for concurrent use. New starts no
//     goroutines; each open watch has exactly one, which exits when its ResultChan closes.
//   - Server certificates are verified (against the kubeconfig's CA, else the system
//     roots) unless the kubeconfig itself says insecure-skip-tls-verify: true; a CA
//     together with insecure is refused as contradictory.
//   - apierrors.IsNotFound, IsAlreadyExists, IsConflict, IsGone, IsResourceExpired,
//     IsTooManyRequests, IsInvalid, ... work on every error from a request the server
//     answered; a refused connection stays visible to utilnet.IsConnectionRefused.
//   - "Too old resourceVersion" reaches the caller in both forms: HTTP 410 as an error
//     from Watch, HTTP 200 + ERROR as a watch.Error event carrying the *metav1.Status.
//   - A stream that carries something that is not a whole, valid event (malformed JSON,
//     a partial event, an event over [MaxWatchEventBytes], an unknown type, an object
//     of another group, version or kind, an object without a resourceVersion) ends with
//     one watch.Error event, reason InternalError, whose message says what was wrong.
//     The decoder never panics, whatever the bytes (FuzzWatchDecoder).
//   - A connection that dies silently is noticed: over HTTP/2 (every TLS server) a
//     connection silent for 30 s is pinged, and closed if no answer comes within 15 s,
//     which fails every request on it so the next ones dial anew ([HealthCheck]).
//   - A server that answers 429 Too Many Requests or 503 "apiserver is shutting down"
//     with Retry-After: N is asked again after N seconds, up to ten times, for reads,
//     updates and deletes; then its last answer is returned. A create or patch is never
//     sent twice. See retry.go.
//   - No request waits forever: Config.Timeout (60 s by default) bounds every request
//     but a watch (discovery included) until its body is read, and a watch until
//     its headers arrive.
//     Retry-After is obeyed up to 30 s, in seconds or as an HTTP-date; no figure
//     wraps into a negative wait, and a malformed one is no request to retry.
//   - Only a GET follows a redirect, and only within the server's scheme, host and
//     port: a redirected write is an error, never a silent no-op, and credentials
//     never leave their server.
//   - Every object, list, watch event, error Status and discovery document is read
//     as the API server reads it: a key matches a field only in its own case
//     ({"replicas":1000,"Replicas":1} is 1000), a key given twice keeps its last
//     value, and an object that gives its kind or apiVersion twice is refused.
//   - A list is decoded as a stream, item by item, and checked like a watch: of the
//     resource's group and version, of the resource's kind (from the scheme, else
//     from discovery, asked once; never from an earlier answer, so a wrong answer
//     is refused without making the right ones after it fail), and every item of
//     the list's kind. Config.MaxResponseBytes caps a response body.
//   - Config and *Client print (with every fmt verb) and log with their secrets
//     redacted; no log line or error shows a server URL's userinfo, whatever its
//     form ('/', '?', '#', '@' unescaped in a password, a token as the user name, a
//     URL that does not parse).
//   - Clients with the same TLS and health-check settings share one transport.
//     Config.WrapTransport wraps it for one client (to count or time its requests)
//     without leaving that sharing.
//   - A cancelled context or Stop closes ResultChan promptly, with no error event; a
//     clean end of stream, or a connection lost between two events, closes it with no
//     error event either (the caller re-watches from the last resourceVersion).
//
// # Differences from client-go
//
//   - One client for every resource (client-go has typed clientsets, the dynamic client
//     and rest.RESTClient); typed or unstructured is decided by the scheme, per kind.
//   - JSON only. client-go's typed clients prefer protobuf.
//   - Kubeconfig: one file, its current context. No KUBECONFIG merging, no exec or
//     auth-provider plugins (a clear error says so), no basic auth, no proxy-url
//     (proxies come from the environment). See tools/clientcmd.
//   - No client-side rate limiting: the Reflector owns backoff (rest.Config QPS/Burst
//     have no counterpart). A request timeout is on by default, and it covers a
//     watch's wait for its headers (client-go: off by default, and never for a watch).
//   - Retries, bounded at ten as in client-go, only where the server asked for one or
//     never answered: a 429 or 5xx with Retry-After to GET, PUT or DELETE (client-go
//     also re-sends POST and PATCH), and a GET whose connection broke (EOF, reset)
//     one second later. A refused connection is returned at once.
//   - The watch decoder rejects an object of another kind than the resource's (or,
//     where the scheme and discovery do not say, than its last list's, else the
//     stream's first object's); client-go's reflector skips such objects with a log
//     line instead (rest/watch.StreamWatcher, tools/cache/reflector.go). Lists are
//     checked against the resource's kind too; client-go takes them as they come.
//
// # Read next
//
// Run Example (go test ./client -run Example -v), then the reflector package, which
// drives a [ResourceClient] as its ListerWatcher. docs/client.md says how to point the
// tests at a real API server: no cluster? cd e2e/controlplane && go run ./cmd/controlplane
// builds and starts kube-apiserver and etcd; kind and minikube work too.
package client
