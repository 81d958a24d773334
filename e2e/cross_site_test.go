package e2e

import (
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attackerPage is a page of another origin that, once loaded, sends what
// any web page can send to a local server without the browser asking it
// first: text/plain fetches in no-cors mode, and forms posted as
// text/plain whose body reads as JSON. It writes what it sent into
// window.results and sets window.done when every answer has come.
var attackerPage = template.Must(template.New("attack").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>a page of another site</title></head><body>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe>
<form id="form-demo" target="sink1" method="POST" enctype="text/plain" action="{{.Demo}}api/control">
<input name='{"name":"create","args":{"name":"formfoo","replicas":"1","pad":"' value='"}}'>
</form>
<form id="form-api" target="sink2" method="POST" enctype="text/plain" action="{{.API}}/api/v1/namespaces/default/configmaps">
<input name='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"formcm"},"data":{"pad":"' value='"}}'>
</form>
<script>
window.results = [];
const demo = {{.Demo}}, api = {{.API}};
const post = (url, body) => fetch(url, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body})
  .then(() => 'sent ' + url, (e) => 'error ' + url + ': ' + e);
const submit = (form, sink) => new Promise((resolve) => {
  document.getElementsByName(sink)[0].addEventListener('load', () => resolve('submitted ' + form), {once: true});
  document.getElementById(form).submit();
});
window.addEventListener('load', async () => {
  results.push(await post(demo + 'api/control', JSON.stringify({name: 'create', args: {name: 'evil', replicas: '1'}})));
  results.push(await post(demo + 'api/control', JSON.stringify({name: 'delete', args: {name: 'victim'}})));
  results.push(await post(api + '/admin/faults/latency?delay=5s', ''));
  results.push(await post(api + '/api/v1/namespaces/default/configmaps',
    JSON.stringify({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'evilcm'}})));
  results.push(await submit('form-demo', 'sink1'));
  results.push(await submit('form-api', 'sink2'));
  window.done = true;
});
</script>
</body></html>`))

// TestCrossSitePageCannotWriteThroughTheDemoOrFakeapi opens, in chromium,
// a page served from another origin (another port of 127.0.0.1) while
// `demo --web --kubeconfig` runs against cmd/fakeapi. The page sends every
// write a page may send without asking: no-cors text/plain fetches that
// create and delete Foos through the demo's controls, inject latency and
// create a ConfigMap in fakeapi, and text/plain forms to both. Every
// request reaches its server and is refused: no Foo is created or
// deleted, no ConfigMap created, no latency injected.
// Diagram: API. client-go: none (kube-apiserver needs credentials instead).
func TestCrossSitePageCannotWriteThroughTheDemoOrFakeapi(t *testing.T) {
	api := startFakeapi(t, "--sample-resources")
	code, body := api.do(t, http.MethodPost, "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos", "application/json",
		`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"victim"},"spec":{"deploymentName":"victim-nginx","replicas":1}}`)
	require.Equal(t, http.StatusCreated, code, body)
	demoURL, demoOut := startWebDemoWithOutput(t, "--kubeconfig", api.Kubeconfig)
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = attackerPage.Execute(w, map[string]string{"Demo": demoURL, "API": api.URL})
	}))
	defer attacker.Close()
	p := startBrowser(t)

	p.do(t, 30*time.Second, chromedp.Navigate(attacker.URL))
	p.waitFor(t, "the page to send its requests and get the answers", `window.done === true`, 20*time.Second)
	results := eval[[]string](t, p, `window.results`)
	foosCode, foos := api.do(t, http.MethodGet, "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos", "", "")
	cmsCode, cms := api.do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps", "", "")
	faultsCode, faults := api.do(t, http.MethodGet, "/admin/faults", "", "")

	require.Len(t, results, 6)
	for _, r := range results {
		assert.True(t, strings.HasPrefix(r, "sent ") || strings.HasPrefix(r, "submitted "), r)
	}
	assert.Equal(t, 3, strings.Count(demoOut.String(), "the page's server refused POST /api/control"),
		"the demo's three refusals (two fetches, one form) reached it\n%s", tail(demoOut.String(), 30))
	assert.Equal(t, 3, strings.Count(api.Logs(), "fakeapi: refused a request"), "fakeapi's three refusals reached it")
	assert.Contains(t, api.Logs(), "origin="+attacker.URL)
	require.Equal(t, http.StatusOK, foosCode, foos)
	assert.Contains(t, foos, `"name":"victim"`, "the Foo the page tried to delete is still there")
	assert.NotContains(t, foos, `"evil"`)
	assert.NotContains(t, foos, `"formfoo"`)
	require.Equal(t, http.StatusOK, cmsCode, cms)
	assert.NotContains(t, cms, `"evilcm"`)
	assert.NotContains(t, cms, `"formcm"`)
	require.Equal(t, http.StatusOK, faultsCode, faults)
	assert.Contains(t, faults, `"delayedRequests":0`, "no latency was injected")
}

// TestCrossSiteChecksLeaveThePageItsControls opens the demo's own page
// against cmd/fakeapi and creates a Foo from its controls: the page's
// requests (same origin, JSON, its token) pass the guard, and the Foo
// reaches fakeapi.
// Diagram: steps 1-9. client-go: none.
func TestCrossSiteChecksLeaveThePageItsControls(t *testing.T) {
	api := startFakeapi(t, "--sample-resources")
	p := openPage(t, startWebDemo(t, "--kubeconfig", api.Kubeconfig))

	p.setValue(t, "foo-name", "own")
	p.click(t, "btn-create")
	p.waitFor(t, "the page to say the Foo was created", `document.getElementById('control-msg').textContent.includes('Foo default/own created')`, 10*time.Second)
	code, body := api.do(t, http.MethodGet, "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos/own", "", "")

	assert.Equal(t, http.StatusOK, code, body)
	assert.Empty(t, p.consoleErrors())
}
