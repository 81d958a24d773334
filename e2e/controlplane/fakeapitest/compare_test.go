package fakeapitest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/samplecontroller"
)

// row is one request, sent to both servers in turn. In path and body,
// {ns} is the test's namespace and {gone} a namespace being deleted.
type row struct {
	name        string
	method      string
	path        string
	contentType string
	body        string

	// code is what both must answer.
	code int
	// sameMessage: fakeapi promises the real server's message word for word.
	sameMessage bool
	// warning: both must send this Warning header ("" for none).
	warning string
	// watch: the answer is a watch stream, which must end with no event.
	watch bool
	// differs says why the two servers may answer differently; empty means
	// they must not.
	differs string
}

// answer is what one server said.
type answer struct {
	code     int
	reason   string
	message  string
	warnings []string
	body     []byte
}

// target is one server to send rows to.
type target struct {
	name   string
	base   string
	token  string
	client *http.Client
}

const (
	mib = 1 << 20
	// A Deployment-free, built-in kind with an int32 field.
	leasePath = "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
	cmPath    = "/api/v1/namespaces/{ns}/configmaps"
)

// token is a continue token as the real server encodes them, with the
// given start key.
func token(rv int64, start string) string {
	data, _ := json.Marshal(map[string]any{"v": "meta.k8s.io/v1", "rv": rv, "start": start})
	return base64.RawURLEncoding.EncodeToString(data)
}

func configMapWithData(name string, n int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"k":%q}}`, name, strings.Repeat("x", n))
}

func secretWithData(name string, n int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":%q},"data":{"k":%q}}`,
		name, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("x"), n)))
}

// expiredWatch explains the one way a watch that ends at once may differ:
// the real server starts it with its context already past the deadline,
// and what it sends before it notices is a race (nothing, or an ERROR 500
// "context deadline exceeded"); fakeapi sends nothing.
const expiredWatch = "kube-apiserver may send an ERROR 500 \"context deadline exceeded\" before it ends; fakeapi sends nothing"

// rows is the table. Order matters: later rows use what earlier ones
// created (cm-ok, the namespace {gone}).
func rows() []row {
	const ctJSON = "application/json"
	const merge = "application/merge-patch+json"
	const jsonPatch = "application/json-patch+json"
	return []row{
		{name: "create a well-formed ConfigMap", method: "POST", path: cmPath, contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-ok"},"data":{"k":"v"}}`, code: 201},
		{name: "list ConfigMaps", method: "GET", path: cmPath, code: 200},
		{name: "ConfigMap data holding a number", method: "POST", path: cmPath, contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-int"},"data":{"k":5}}`, code: 400, sameMessage: true},
		{name: "ConfigMap data that is a list", method: "POST", path: cmPath, contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-list"},"data":["k"]}`, code: 400, sameMessage: true},
		{name: "Lease int32 given a string", method: "POST", path: leasePath, contentType: ctJSON,
			body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"leaseDurationSeconds":"15"}}`, code: 400, sameMessage: true},
		{name: "Lease int32 overflowing", method: "POST", path: leasePath, contentType: ctJSON,
			body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"leaseDurationSeconds":3000000000}}`, code: 400, sameMessage: true},
		{name: "update to ill-typed data", method: "PUT", path: cmPath + "/cm-ok", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-ok"},"data":{"k":true}}`, code: 400, sameMessage: true},
		{name: "merge patch producing ill-typed data", method: "PATCH", path: cmPath + "/cm-ok", contentType: merge,
			body: `{"data":{"k":5}}`, code: 422,
			differs: "the message quotes the whole patched object, whose metadata (managedFields, uid, timestamps) differs"},
		{name: "ConfigMap with exactly 1 MiB of data", method: "POST", path: cmPath, contentType: ctJSON,
			body: configMapWithData("cm-1mib", mib), code: 201},
		{name: "ConfigMap over 1 MiB of data", method: "POST", path: cmPath, contentType: ctJSON,
			body: configMapWithData("cm-big", mib+1), code: 422, sameMessage: true},
		{name: "Secret over 1 MiB of data", method: "POST", path: "/api/v1/namespaces/{ns}/secrets", contentType: ctJSON,
			body: secretWithData("s-big", mib+1), code: 422, sameMessage: true},
		{name: "Secret with stringData", method: "POST", path: "/api/v1/namespaces/{ns}/secrets", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s-ok"},"stringData":{"k":"v"}}`, code: 201},
		{name: "body over 3 MiB", method: "POST", path: cmPath, contentType: ctJSON,
			body: configMapWithData("cm-huge", 3*mib+1), code: 413, sameMessage: true},
		{name: "create in a missing namespace", method: "POST", path: "/api/v1/namespaces/no-such-namespace/configmaps", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, code: 404, sameMessage: true},
		{name: "create a namespace held by a finalizer", method: "POST", path: "/api/v1/namespaces", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{gone}","finalizers":["example.com/hold"]}}`, code: 201},
		{name: "delete it: Terminating", method: "DELETE", path: "/api/v1/namespaces/{gone}", code: 200},
		{name: "create in a Terminating namespace", method: "POST", path: "/api/v1/namespaces/{gone}/configmaps", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, code: 403, sameMessage: true},
		{name: "unknown field, no fieldValidation", method: "POST", path: cmPath, contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-warn"},"spec":{"x":1}}`, code: 201,
			warning: `299 - "unknown field \"spec\""`},
		{name: "unknown field, fieldValidation=Warn", method: "POST", path: cmPath + "?fieldValidation=Warn", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-warn2","labelz":{"a":"b"}}}`, code: 201,
			warning: `299 - "unknown field \"metadata.labelz\""`},
		{name: "unknown field, fieldValidation=Ignore", method: "POST", path: cmPath + "?fieldValidation=Ignore", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-ignore"},"spec":{"x":1}}`, code: 201},
		{name: "unknown field, fieldValidation=Strict", method: "POST", path: cmPath + "?fieldValidation=Strict", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-strict"},"spec":{"x":1}}`, code: 400, sameMessage: true},
		{name: "unknown field in an update, Strict", method: "PUT", path: cmPath + "/cm-ok?fieldValidation=Strict", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-ok"},"datta":{}}`, code: 400, sameMessage: true},
		{name: "unknown field in a patch, Strict", method: "PATCH", path: cmPath + "/cm-ok?fieldValidation=Strict", contentType: merge,
			body: `{"spec":{"x":1}}`, code: 422,
			differs: "the message quotes the whole patched object, whose metadata (managedFields, uid, timestamps) differs"},
		{name: "unknown fieldValidation value", method: "POST", path: cmPath + "?fieldValidation=Loud", contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-loud"}}`, code: 422, sameMessage: true},
		{name: "continue token that is not base64 JSON", method: "GET", path: cmPath + "?limit=1&continue=garbage", code: 400, sameMessage: true},
		{name: "continue token leaving the list's prefix", method: "GET", path: cmPath + "?limit=1&continue=" + token(5, "/../secrets/x"), code: 400, sameMessage: true},
		{name: "continue token of version 0", method: "GET", path: cmPath + "?limit=1&continue=" + token(0, "/a"), code: 400, sameMessage: true},
		{name: "continue token at the latest state (-1)", method: "GET", path: cmPath + "?limit=1&continue=" + token(-1, "/a"), code: 200},
		{name: "watch with timeoutSeconds=-1", method: "GET", path: cmPath + "?watch=true&resourceVersion={rv}&timeoutSeconds=-1", code: 200, watch: true,
			differs: expiredWatch},
		{name: "watch whose timeout wraps negative", method: "GET", path: cmPath + "?watch=true&resourceVersion={rv}&timeoutSeconds=9223372036854775807", code: 200, watch: true,
			differs: expiredWatch},
		{name: "watch with timeoutSeconds=-1 from \"\"", method: "GET", path: cmPath + "?watch=true&timeoutSeconds=-1", code: 200, watch: true,
			differs: expiredWatch},
		{name: "timeoutSeconds beyond int64", method: "GET", path: cmPath + "?watch=true&timeoutSeconds=9223372036854775808", code: 400, sameMessage: true},
		{name: "watch with timeoutSeconds=1", method: "GET", path: cmPath + "?watch=true&resourceVersion={rv}&timeoutSeconds=1", code: 200, watch: true},

		// JSON patch limits
		{name: "JSON patch of 10,001 operations", method: "PATCH", path: cmPath + "/cm-ok", contentType: jsonPatch,
			body: repeatOps(10_001, `{"op":"test","path":"/data/k","value":"v"}`), code: 413, sameMessage: true},
		{name: "JSON patch of 10,000 operations", method: "PATCH", path: cmPath + "/cm-ok", contentType: jsonPatch,
			body: repeatOps(10_000, `{"op":"test","path":"/data/k","value":"v"}`), code: 200},
		{name: "create a 1 KiB ConfigMap to copy", method: "POST", path: cmPath, contentType: ctJSON,
			body: configMapWithData("cm-copy", 1024), code: 201},
		{name: "18 copies of /data into itself", method: "PATCH", path: cmPath + "/cm-copy", contentType: jsonPatch,
			body: repeatOps(18, `{"op":"copy","from":"/data","path":"/data/c%d"}`), code: 422, sameMessage: true},

		// metadata rules
		{name: "annotations of exactly 256 KiB", method: "POST", path: cmPath, contentType: ctJSON,
			body: configMapWithAnnotation("cm-ann-ok", "k", 256<<10), code: 201},
		{name: "annotations over 256 KiB", method: "POST", path: cmPath, contentType: ctJSON,
			body: configMapWithAnnotation("cm-ann-big", "k", 256<<10+1), code: 422, sameMessage: true},
		{name: "annotation key with a space", method: "POST", path: cmPath, contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-ann-key","annotations":{"bad key":"v"}}}`, code: 422, sameMessage: true},
		{name: "finalizer that is not a qualified name", method: "POST", path: cmPath, contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-fin","finalizers":["example.com/bad name"]}}`, code: 422, sameMessage: true},
		{name: "finalizer without a domain", method: "POST", path: cmPath, contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-fin2","finalizers":["mine"]}}`, code: 422, sameMessage: true},
		{name: "finalizer without a domain on a Lease", method: "POST", path: leasePath, contentType: ctJSON,
			body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l-fin","finalizers":["mine"]}}`, code: 201},
		{name: "two controller owner references", method: "POST", path: cmPath, contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-own","ownerReferences":[` +
				`{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"1","controller":true},` +
				`{"apiVersion":"v1","kind":"ConfigMap","name":"b","uid":"2","controller":true}]}}`, code: 422, sameMessage: true},
		{name: "owner reference without a uid", method: "POST", path: cmPath, contentType: ctJSON,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-own2","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a"}]}}`, code: 422, sameMessage: true},
		{name: "Lease with a negative duration", method: "POST", path: leasePath, contentType: ctJSON,
			body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l-neg"},"spec":{"leaseDurationSeconds":-1}}`, code: 422, sameMessage: true},

		// Deployments: fakeapi registers the sample controller's, a Go type of a few fields
		{name: "a well-formed Deployment", method: "POST", path: deployPath, contentType: ctJSON,
			body: deployment("d-ok", `"minReadySeconds":5,`, `"ports":[{"containerPort":80}]`), code: 201},
		{name: "Deployment minReadySeconds a string", method: "POST", path: deployPath, contentType: ctJSON,
			body: deployment("d-soon", `"minReadySeconds":"soon",`, ""), code: 400, sameMessage: true},
		{name: "Deployment containerPort a string", method: "POST", path: deployPath, contentType: ctJSON,
			body: deployment("d-port", "", `"ports":[{"containerPort":"80"}]`), code: 400, sameMessage: true},
		{name: "Deployment field unknown to apps/v1, Strict", method: "POST", path: deployPath + "?fieldValidation=Strict", contentType: ctJSON,
			body: deployment("d-strict", `"minReadySeconds":5,`, `"colour":"red"`), code: 400, sameMessage: true},
	}
}

// deployPath is where Deployments are; fakeapi serves them as
// cmd/fakeapi --sample-resources does.
const deployPath = "/apis/apps/v1/namespaces/{ns}/deployments"

// deployment is a valid Deployment with spec (ending in a comma) and
// container (fields, no comma) text added.
func deployment(name, spec, container string) string {
	if container != "" {
		container = "," + container
	}
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + name + `"},"spec":{` + spec +
		`"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},` +
		`"spec":{"containers":[{"name":"web","image":"nginx"` + container + `}]}}}}`
}

// repeatOps is a JSON patch of n copies of op; %d in op is the index.
func repeatOps(n int, op string) string {
	ops := make([]string, n)
	for i := range ops {
		ops[i] = strings.ReplaceAll(op, "%d", fmt.Sprint(i))
	}
	return "[" + strings.Join(ops, ",") + "]"
}

// configMapWithAnnotation is a ConfigMap whose one annotation, key and
// value, is n bytes long.
func configMapWithAnnotation(name, key string, n int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"annotations":{%q:%q}}}`, name, key, strings.Repeat("x", n-len(key)))
}

// TestFakeAPIAnswersLikeKubeAPIServer sends every row to a real
// kube-apiserver and to fakeapi, and checks that both answer alike.
// Diagram: API. kube-apiserver: its decoding, validation, NamespaceLifecycle
// admission, field validation, continue tokens and watch timeouts.
func TestFakeAPIAnswersLikeKubeAPIServer(t *testing.T) {
	cp := testenv.ControlPlane(t)
	ns := testenv.Namespace(t)
	gone := ns + "-gone"
	kube := target{name: "kube-apiserver", base: cp.URL, token: cp.Token, client: trusting(t, cp.CAPEM)}
	fake := startFakeAPI(t)
	setup := answerOf(t, fake, row{method: "POST", path: "/api/v1/namespaces", contentType: "application/json",
		body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"}}`}, ns, gone, "")
	require.Equal(t, http.StatusCreated, setup.code, string(setup.body))

	var table strings.Builder
	fmt.Fprintf(&table, "%-45s %-16s %-16s %s\n", "request", "kube-apiserver", "fakeapi", "")
	for _, r := range rows() {
		realAnswer := answerOf(t, kube, r, ns, gone, currentRV(t, kube, ns))
		fakeAnswer := answerOf(t, fake, r, ns, gone, currentRV(t, fake, ns))
		note := "same"
		if r.differs != "" {
			note = "differs: " + r.differs
		}
		fmt.Fprintf(&table, "%-45s %-16s %-16s %s\n", r.name, realAnswer.short(), fakeAnswer.short(), note)

		assert.Equal(t, r.code, realAnswer.code, "%s: kube-apiserver: %s", r.name, realAnswer.body)
		assert.Equal(t, realAnswer.code, fakeAnswer.code, "%s: fakeapi: %s", r.name, fakeAnswer.body)
		assert.Equal(t, realAnswer.reason, fakeAnswer.reason, "%s: reason", r.name)
		if r.sameMessage {
			assert.Equal(t, realAnswer.message, fakeAnswer.message, "%s: message", r.name)
		}
		if r.warning != "" {
			assert.Equal(t, []string{r.warning}, realAnswer.warnings, "%s: kube-apiserver's Warning", r.name)
		}
		assert.Equal(t, realAnswer.warnings, fakeAnswer.warnings, "%s: Warning headers", r.name)
		if r.watch {
			assert.Empty(t, eventsIn(fakeAnswer.body), "%s: fakeapi's watch sent events", r.name)
			for _, ev := range eventsIn(realAnswer.body) {
				assert.Contains(t, ev, `"message":"context deadline exceeded"`, "%s: kube-apiserver's watch sent an event", r.name)
			}
		}
	}
	t.Logf("the same requests, side by side:\n%s", table.String())
}

// startFakeAPI serves an in-process fakeapi over HTTP, configured as close
// to the real server as it goes: namespaces enforced, Secrets served, and
// Deployments as cmd/fakeapi --sample-resources serves them (registered
// with the sample controller's Go type, which has a few of their fields).
func startFakeAPI(t *testing.T) target {
	srv := fakeapi.New(fakeapi.Options{NamespaceLifecycle: true, Scheme: samplecontroller.NewScheme()})
	require.NoError(t, srv.Register(fakeapi.SecretResource))
	require.NoError(t, srv.Register(samplecontroller.DeploymentResource))
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		srv.Close() // ends open watches first, so that ts.Close does not wait for them
		ts.Close()
	})
	return target{name: "fakeapi", base: ts.URL, client: ts.Client()}
}

// trusting is an HTTP client that trusts only the control plane's certificate.
func trusting(t *testing.T, caPEM []byte) *http.Client {
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// answerOf sends r to tg and reads the whole answer; a watch must end
// within its deadline.
func answerOf(t *testing.T, tg target, r row, ns, gone, rv string) answer {
	t.Helper()
	fill := strings.NewReplacer("{ns}", ns, "{gone}", gone, "{rv}", rv)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.method, tg.base+fill.Replace(r.path), strings.NewReader(fill.Replace(r.body)))
	require.NoError(t, err)
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	req.Header.Set("Accept", "application/json")
	if tg.token != "" {
		req.Header.Set("Authorization", "Bearer "+tg.token)
	}
	resp, err := tg.client.Do(req)
	require.NoError(t, err, "%s: %s", tg.name, r.name)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "%s: %s: the answer must end (a watch included)", tg.name, r.name)
	a := answer{code: resp.StatusCode, warnings: resp.Header.Values("Warning"), body: body}
	if resp.StatusCode >= 300 {
		var st struct{ Reason, Message string }
		if json.Unmarshal(body, &st) == nil {
			a.reason, a.message = st.Reason, st.Message
		}
	}
	return a
}

// currentRV is the resourceVersion of a list of ConfigMaps in ns: a watch
// from it starts with no event.
func currentRV(t *testing.T, tg target, ns string) string {
	t.Helper()
	a := answerOf(t, tg, row{method: "GET", path: cmPath + "?limit=1"}, ns, "", "")
	require.Equal(t, http.StatusOK, a.code, string(a.body))
	var list struct {
		Metadata struct{ ResourceVersion string }
	}
	require.NoError(t, json.Unmarshal(a.body, &list))
	return list.Metadata.ResourceVersion
}

// eventsIn returns the watch events of a stream body.
func eventsIn(body []byte) []string {
	var out []string
	for line := range strings.Lines(string(body)) {
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	return out
}

func (a answer) short() string {
	if a.reason == "" {
		return fmt.Sprint(a.code)
	}
	return fmt.Sprintf("%d %s", a.code, a.reason)
}
