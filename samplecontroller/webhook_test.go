package samplecontroller_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/testcert"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// webhookCert writes a serving certificate for 127.0.0.1 into dir and
// returns a client that trusts it.
func webhookCert(t *testing.T, dir string) *http.Client {
	t.Helper()
	pair, err := testcert.Write(dir, 1)
	require.NoError(t, err)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pair.Pool}}, Timeout: 10 * time.Second}
}

// admitFoo POSTs the AdmissionReview of op on foo (and old) to path and
// returns the response.
func admitFoo(t *testing.T, hc *http.Client, base, path string, op admission.Operation, foo, old *sc.Foo) admission.Response {
	t.Helper()
	raw := func(f *sc.Foo) runtime.RawExtension {
		if f == nil {
			return runtime.RawExtension{}
		}
		f.APIVersion, f.Kind = sc.FooGVK.GroupVersion().String(), sc.FooGVK.Kind
		data, err := json.Marshal(f)
		require.NoError(t, err)
		return runtime.RawExtension{Raw: data}
	}
	body, err := json.Marshal(admission.Review{
		TypeMeta: metav1.TypeMeta{APIVersion: admission.ReviewAPIVersion, Kind: admission.AdmissionReviewKind},
		Request: &admission.Request{
			UID: "uid", Kind: metav1.GroupVersionKind{Group: sc.FooGVK.Group, Version: sc.FooGVK.Version, Kind: sc.FooGVK.Kind},
			Namespace: foo.Namespace, Name: foo.Name, Operation: op, Object: raw(foo), OldObject: raw(old),
		},
	})
	require.NoError(t, err)
	resp, err := hc.Post(base+path, "application/json", strings.NewReader(string(body)))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out admission.Review
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.NotNil(t, out.Response)
	return *out.Response
}

// With Options.WebhookServer the sample controller serves its two admission
// webhooks. The defaulter answers a Foo without replicas with a patch that
// sets them; the validator refuses what validateFoo refuses (a name that is
// not a DNS label, replicas over MaxReplicas) with the same field errors,
// and a Foo whose Deployment another Foo controls, which it reads from the
// Manager's cache: the one rule no schema can state.
// Diagram: none (admission happens before step 1). client-go: controller-runtime webhook.Server, admission.CustomDefaulter, CustomValidator
func TestFooWebhooksDefaultAndRefuseBeforeAFooIsStored(t *testing.T) {
	dir := t.TempDir()
	hc := webhookCert(t, dir)
	ws, err := admission.NewServer(admission.ServerOptions{
		BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), Logger: quiet,
	})
	require.NoError(t, err)
	w := newWorld(t, sc.Options{WebhookServer: ws})
	first := w.createFoo(t, newFoo("first", "web", int32p(2)))
	deadline := time.Now().Add(10 * time.Second)
	for ws.Addr() == nil {
		require.True(t, time.Now().Before(deadline), "the webhook server never listened")
		time.Sleep(5 * time.Millisecond) // a real socket: poll with a deadline
	}
	base := "https://" + ws.Addr().String()

	defaulted := admitFoo(t, hc, base, sc.MutatePath, admission.Create, newFoo("second", "api", nil), nil)
	untouched := admitFoo(t, hc, base, sc.MutatePath, admission.Create, newFoo("third", "api", int32p(0)), nil)
	badName := admitFoo(t, hc, base, sc.ValidatePath, admission.Create, newFoo("fourth", "Web_1", nil), nil)
	tooMany := admitFoo(t, hc, base, sc.ValidatePath, admission.Update, newFoo("first", "web", int32p(500)), first)
	valid := admitFoo(t, hc, base, sc.ValidatePath, admission.Create, newFoo("fifth", "other", int32p(1)), nil)
	var collision admission.Response
	for {
		collision = admitFoo(t, hc, base, sc.ValidatePath, admission.Create, newFoo("second", "web", nil), nil)
		if !collision.Allowed || time.Now().After(deadline) {
			break // the Deployment reached the cache, or never will
		}
		time.Sleep(10 * time.Millisecond) // the cache lags the Foo's Deployment create
	}
	own := admitFoo(t, hc, base, sc.ValidatePath, admission.Update, newFoo("first", "web", int32p(3)), first)

	assert.True(t, defaulted.Allowed)
	assert.JSONEq(t, `[{"op":"add","path":"/spec/replicas","value":1}]`, string(defaulted.Patch))
	assert.True(t, untouched.Allowed)
	assert.Empty(t, untouched.Patch, "replicas 0 is set: nothing to default")
	assert.False(t, badName.Allowed)
	assert.Equal(t, int32(422), badName.Result.Code)
	assert.Contains(t, badName.Result.Message, `spec.deploymentName: Invalid value: "Web_1"`)
	assert.False(t, tooMany.Allowed)
	assert.Contains(t, tooMany.Result.Message, "spec.replicas: Invalid value: 500: must be less than or equal to 100")
	assert.True(t, valid.Allowed, "%+v", valid.Result)
	assert.False(t, collision.Allowed, "a Foo naming another Foo's Deployment is refused")
	assert.Contains(t, collision.Result.Message, `Deployment "web" is controlled by Foo "first": each Foo needs its own Deployment`)
	assert.True(t, own.Allowed, "a Foo may keep naming its own Deployment: %+v", own.Result)
}

// TestShardedReplicasEachRefuseAFooClaimingAnotherFoosDeployment: two
// sharded replicas, each holding half the buckets and so caching half the
// Deployments, each serving the validating webhook. A new Foo naming the
// Deployment of any existing Foo is refused by both: the validator of a
// replica that does not hold that Foo's bucket reads the Deployment from
// the API server, not from its share of the cache (which would not have
// it, and would let the claim through).
// Diagram: none (admission happens before step 1; the cache it must not trust is steps 4-5). client-go: controller-runtime admission.CustomValidator.
func TestShardedReplicasEachRefuseAFooClaimingAnotherFoosDeployment(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	t.Cleanup(srv.Close)
	require.NoError(t, sc.Register(srv))
	w := &world{srv: srv, foos: srv.Resource(sc.FoosGVR).Namespace(ns), deps: srv.Resource(sc.DeploymentsGVR).Namespace(ns)}
	// The ring's split is known from the identities alone. Foos' buckets
	// come from their random uids: create at least 8, and more until each
	// replica has a Foo outside its share to be asked about.
	owners := sharding.BucketOwners([]string{"replica-0", "replica-1"}, sharding.DefaultBuckets)
	share := func(name string) []int {
		var bs []int
		for b, o := range owners {
			if o == name {
				bs = append(bs, b)
			}
		}
		return bs
	}
	n := 0
	for outside := map[string]bool{}; n < 8 || len(outside) < 2; n++ {
		w.createFoo(t, newFoo(fmt.Sprintf("foo-%d", n), fmt.Sprintf("dep-%d", n), int32p(1)))
		b := fooBuckets(t, w.foos, sharding.DefaultBuckets)[fmt.Sprintf("%s/foo-%d", ns, n)]
		outside[owners[b]] = true // a Foo one replica owns is outside the other's share
	}
	api := func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return srv.Resource(gvr).Namespace(namespace)
	}
	dir := t.TempDir()
	hc := webhookCert(t, dir)
	type replica struct {
		name string
		sc   *sc.SampleController
		ws   *admission.Server
	}
	var replicas []replica
	for _, name := range []string{"replica-0", "replica-1"} {
		ws, err := admission.NewServer(admission.ServerOptions{
			BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), Logger: quiet,
		})
		require.NoError(t, err)
		ctrl, err := sc.New(api, sc.Options{
			Namespace: ns, DeploymentSimulator: true, Logger: quiet, WebhookServer: ws,
			Shard: &sc.ShardOptions{Ring: "foos", Identity: name, LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond},
		})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- ctrl.Run(ctx) }()
		t.Cleanup(func() {
			cancel()
			assert.NoError(t, <-done)
		})
		replicas = append(replicas, replica{name: name, sc: ctrl, ws: ws})
	}
	// A real socket and real time: poll with a deadline, until each replica
	// holds exactly the buckets the ring gives it (the one that joined first
	// holds them all for a while).
	deadline := time.Now().Add(30 * time.Second)
	for {
		settled := true
		for _, r := range replicas {
			settled = settled && slices.Equal(r.sc.ShardMember().Held(), share(r.name))
		}
		list, err := w.deps.List(context.Background(), metav1.ListOptions{})
		require.NoError(t, err)
		listening := replicas[0].ws.Addr() != nil && replicas[1].ws.Addr() != nil
		if settled && len(list.(*sc.DeploymentList).Items) == n && listening {
			break
		}
		require.True(t, time.Now().Before(deadline), "the ring never settled with every Foo's Deployment created")
		time.Sleep(20 * time.Millisecond)
	}
	buckets := fooBuckets(t, w.foos, sharding.DefaultBuckets)

	for _, r := range replicas {
		held := r.sc.ShardMember().Held()
		notHeld, refused := 0, 0
		for i := range n {
			foo := fmt.Sprintf("foo-%d", i)
			if !slices.Contains(held, buckets[ns+"/"+foo]) {
				notHeld++
			}
			claim := admitFoo(t, hc, "https://"+r.ws.Addr().String(), sc.ValidatePath, admission.Create, newFoo("thief", fmt.Sprintf("dep-%d", i), nil), nil)

			if !claim.Allowed {
				refused++
			}
			assert.False(t, claim.Allowed, "%s allowed a Foo to take %s's Deployment (bucket %d; it holds %v)", r.name, foo, buckets[ns+"/"+foo], held)
			if claim.Result != nil {
				assert.Contains(t, claim.Result.Message, fmt.Sprintf(`Deployment "dep-%d" is controlled by Foo %q`, i, foo))
			}
		}
		t.Logf("%s holds buckets %v: refused %d of %d claims; %d of them were on Foos outside its share", r.name, held, refused, n, notHeld)
		assert.Positive(t, notHeld, "the test asks each replica about Foos it does not hold")
	}
}
