package ctrltest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/reflector"
)

// ListerWatchers returns the manager.Options.NewListerWatcher of a server.
func ListerWatchers(s *fakeapi.Server) func(schema.GroupVersionResource, string) reflector.ListerWatcher {
	return func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
		return s.Resource(gvr).Namespace(ns)
	}
}

func NewManager(t *testing.T, s *fakeapi.Server, opts manager.Options) *manager.Manager {
	t.Helper()
	opts.NewListerWatcher = ListerWatchers(s)
	if opts.Logger == nil {
		opts.Logger = Quiet
	}
	m, err := manager.New(opts)
	require.NoError(t, err)
	return m
}

// RunManager runs m.Start until stop is called or the test ends; stop
// cancels and returns Start's result.
func RunManager(t testing.TB, m *manager.Manager) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- m.Start(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = <-result
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// NoLeader is a runnable that runs without leadership.
type NoLeader struct{ manager.RunnableFunc }

// NeedLeaderElection reports false.
func (NoLeader) NeedLeaderElection() bool { return false }
