package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// The real-server scenario: both informers sync the same ConfigMaps from a
// real kube-apiserver, by a plain list and by a streaming list, both sides
// speaking JSON and decoding into the typed corev1.ConfigMap. It runs only
// when INFORMERLAB_KUBECONFIG names a disposable server's kubeconfig, such
// as the one e2e/controlplane starts; it leaves its namespace behind, so a
// second run does not create the objects again.

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// realServerObjects is how many ConfigMaps of 1 KiB the scenario syncs.
func realServerObjects() int { return big(10_000) }

// BenchmarkRealServerSync measures the time from starting an informer to
// its HasSynced, polled every millisecond, against a real API server.
func BenchmarkRealServerSync(b *testing.B) {
	path := os.Getenv("INFORMERLAB_KUBECONFIG")
	if path == "" {
		b.Skip("INFORMERLAB_KUBECONFIG is not set: start a real API server with " +
			"`cd e2e/controlplane && go run ./cmd/controlplane` and export the variable it prints")
	}
	n := realServerObjects()
	ns := fmt.Sprintf("informerlab-bench-%d", n)
	ours, theirs := realClients(b, path)
	seedConfigMaps(b, ours, ns, n)

	for _, mode := range []string{"list", "watchlist"} {
		for _, impl := range []string{"clientgo", "ours"} {
			b.Run(fmt.Sprintf("mode=%s/impl=%s", mode, impl), func(b *testing.B) {
				for b.Loop() {
					var inf interface {
						HasSynced() bool
					}
					var stop func()
					if impl == "ours" {
						i := informer.NewSharedIndexInformer(ours.Resource(configMapsGVR).Namespace(ns), &corev1.ConfigMap{}, 0,
							indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc},
							informer.WithLogger(quiet),
							informer.WithReflectorOptions(reflector.Options{UseWatchList: mode == "watchlist", Logger: quiet}))
						inf, stop = i, run(i.Run)
					} else {
						lw := cache.NewListWatchFromClient(theirs.CoreV1().RESTClient(), "configmaps", ns, fields.Everything())
						var src cache.ListerWatcher = lw
						if mode == "list" {
							src = listOnly{lw}
						}
						i := cache.NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0,
							cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
						inf, stop = i, run(i.RunWithContext)
					}
					eventually(b, 5*time.Minute, "informer synced", inf.HasSynced)
					b.StopTimer()
					stop()
					b.StartTimer()
				}
			})
		}
	}
}

// listOnly declines client-go's streaming list, so its Reflector lists.
type listOnly struct{ *cache.ListWatch }

func (listOnly) IsWatchListSemanticsUnSupported() bool { return true }

// realClients returns informerlab's client and client-go's clientset for the
// kubeconfig at path, both asking for JSON and decoding corev1 types.
func realClients(b *testing.B, path string) (*client.Client, kubernetes.Interface) {
	b.Helper()
	cfg, err := client.LoadKubeconfig(path)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Logger = quiet
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	ours, err := client.New(cfg, scheme)
	if err != nil {
		b.Fatal(err)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		b.Fatal(err)
	}
	rc.ContentType = "application/json"
	rc.AcceptContentTypes = "application/json"
	rc.QPS, rc.Burst = -1, 0 // no client-side rate limit: informerlab has none
	theirs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		b.Fatal(err)
	}
	return ours, theirs
}

// seedConfigMaps makes sure namespace ns holds ConfigMaps cm-0 ... cm-(n-1),
// each with 1 KiB of data, creating only the missing ones.
func seedConfigMaps(b *testing.B, c *client.Client, ns string, n int) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	nsObj := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns}}
	_, err := c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, nsObj, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	data := strings.Repeat("x", 1024)
	work := make(chan int)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range work {
				cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%d", i)},
					Data:       map[string]string{"data": data}}
				_, err := c.Resource(configMapsGVR).Namespace(ns).Create(ctx, cm, metav1.CreateOptions{})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	if err := errors.Join(all...); err != nil {
		b.Fatal(err)
	}
}
