package manager_test

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/fakeapi"
)

// benchClient returns a running Manager's Client whose cache holds one
// ConfigMap, a/config, with ten data keys and three labels.
func benchClient(b *testing.B) *manager.Client {
	srv := fakeapi.New(fakeapi.Options{})
	b.Cleanup(srv.Close)
	cm := ctrltest.CMWith("a", "config", map[string]any{})
	for i := range 10 {
		cm.Object["data"].(map[string]any)[fmt.Sprintf("key-%d", i)] = fmt.Sprintf("value-%d", i)
	}
	cm.SetLabels(map[string]string{"app": "demo", "tier": "web", "team": "a"})
	if _, err := srv.Resource(ctrltest.CMGVR).Namespace("a").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	api := ctrltest.NewCountingAPI(srv)
	m, err := manager.New(manager.Options{NewClient: api.NewClient, Logger: ctrltest.Quiet})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.GetInformer(ctrltest.CMGVR, ctrltest.ExampleCM()); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = m.Start(ctx)
	}()
	b.Cleanup(func() {
		cancel()
		<-done
	})
	<-m.Elected() // the cache has synced
	return m.GetClient()
}

// BenchmarkClientGet measures what a read from the cache costs with the
// copy (Get) and without (GetShared): the copy is the price of never
// corrupting the cache by accident.
func BenchmarkClientGet(b *testing.B) {
	c := benchClient(b)
	ctx := context.Background()
	target, example := ctrltest.ExampleCM(), ctrltest.ExampleCM()
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Get(ctx, ctrltest.Key("a", "config"), target); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("shared", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.GetShared(ctx, ctrltest.Key("a", "config"), example); err != nil {
				b.Fatal(err)
			}
		}
	})
}
