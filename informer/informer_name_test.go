package informer_test

import (
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// The registry of InformerNames is process-wide: every test here reserves
// names of its own (its test name) and releases them when it ends, so the
// tests may run in parallel with each other and with any other test.

// reserveName reserves name for the rest of the test.
func reserveName(t *testing.T, name string) *informer.InformerName {
	t.Helper()
	n, err := informer.NewInformerName(name)
	require.NoError(t, err)
	t.Cleanup(n.Release)
	return n
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// TestNewInformerNameRefusesATakenNameUntilItIsReleased: a name is reserved
// once in the process; a second reservation fails in client-go's words
// until the first is released; an empty name is refused.
//
// Diagram: none (metrics). client-go: tools/cache NewInformerName
func TestNewInformerNameRefusesATakenNameUntilItIsReleased(t *testing.T) {
	t.Parallel()
	first := reserveName(t, t.Name())

	_, errTaken := informer.NewInformerName(t.Name())
	_, errEmpty := informer.NewInformerName("")
	first.Release()
	again := reserveName(t, t.Name())

	assert.EqualError(t, errTaken, `informer: informer name "`+t.Name()+`" is already registered`)
	assert.EqualError(t, errEmpty, "informer: informer name cannot be empty")
	assert.Equal(t, t.Name(), again.Name())
}

// TestWithResourceReservesEachResourceOnceUnderAName: the first identity of
// a resource is reserved, a second one of the same resource is not, one of
// another resource is; a nil InformerName reserves nothing.
//
// Diagram: none (metrics). client-go: tools/cache InformerName.WithResource
func TestWithResourceReservesEachResourceOnceUnderAName(t *testing.T) {
	t.Parallel()
	n := reserveName(t, t.Name())

	first := n.WithResource(podsGVR)
	second := n.WithResource(podsGVR)
	other := n.WithResource(cmGVR)
	none := (*informer.InformerName)(nil).WithResource(podsGVR)

	assert.True(t, first.Reserved())
	assert.False(t, second.Reserved())
	assert.True(t, other.Reserved())
	assert.False(t, none.Reserved())
	assert.Equal(t, podsGVR, none.GroupVersionResource())
	assert.Equal(t, t.Name(), second.Name())
	assert.Equal(t, t.Name()+" /v1, Resource=pods", first.String())
	assert.False(t, informer.InformerNameAndResource{}.Reserved())
}

// TestReleaseUnreservesEveryIdentityOfTheName: after Release no identity
// of the name is reserved, nor is one asked for later; a new InformerName
// of the same name reserves the resource afresh.
//
// Diagram: none (metrics). client-go: tools/cache InformerName.Release
func TestReleaseUnreservesEveryIdentityOfTheName(t *testing.T) {
	t.Parallel()
	n := reserveName(t, t.Name())
	pods, cms := n.WithResource(podsGVR), n.WithResource(cmGVR)

	n.Release()
	late := n.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"})
	renewed := reserveName(t, t.Name()).WithResource(podsGVR)

	assert.False(t, pods.Reserved())
	assert.False(t, cms.Reserved())
	assert.False(t, late.Reserved())
	assert.True(t, renewed.Reserved())
}

// TestReleasingAStaleInformerNameLeavesItsSuccessorReserved: releasing an
// InformerName a second time, after its name was reserved again, must not
// free the new holder's name. client-go deletes the name from its registry
// on every Release, so a third holder could reserve it while the second
// still holds it.
//
// Diagram: none (metrics). client-go: tools/cache InformerName.Release (unconditional delete)
func TestReleasingAStaleInformerNameLeavesItsSuccessorReserved(t *testing.T) {
	t.Parallel()
	stale := reserveName(t, t.Name())
	stale.Release()
	successor := reserveName(t, t.Name())
	id := successor.WithResource(podsGVR)

	stale.Release()
	_, err := informer.NewInformerName(t.Name())

	assert.Error(t, err, "the successor still holds the name")
	assert.True(t, id.Reserved())
}

// TestNewInformerNameGivesARaceForANameToOneWinner: goroutines that reserve
// one name at once get it exactly once, and those that reserve a resource
// under it at once get it reserved exactly once.
//
// Diagram: none (metrics). client-go: tools/cache informerNameRegistry
func TestNewInformerNameGivesARaceForANameToOneWinner(t *testing.T) {
	t.Parallel()
	const racers = 8
	var wg sync.WaitGroup
	won := make(chan *informer.InformerName, racers)
	reserved := make(chan bool, racers)

	for range racers {
		wg.Go(func() {
			if n, err := informer.NewInformerName(t.Name()); err == nil {
				won <- n
			}
		})
	}
	wg.Wait()
	close(won)
	winners := []*informer.InformerName{}
	for n := range won {
		t.Cleanup(n.Release)
		winners = append(winners, n)
	}
	require.Len(t, winners, 1)
	for range racers {
		wg.Go(func() { reserved <- winners[0].WithResource(podsGVR).Reserved() })
	}
	wg.Wait()
	close(reserved)
	count := 0
	for r := range reserved {
		if r {
			count++
		}
	}

	assert.Equal(t, 1, count)
}

// TestWithIdentifierNamesTheMetricsAndRecordsOnlyWhenReserved: an informer
// named by a reserved identity records its metrics under the name and
// resource; a second informer of the same name and resource records none,
// so the two never write the same series, and logs why.
//
// Diagram: steps 1 and 6. client-go: SharedIndexInformerOptions.Identifier, newFIFOMetrics (Reserved)
func TestWithIdentifierNamesTheMetricsAndRecordsOnlyWhenReserved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cms := newServer(t, fakeapi.Options{}).Resource(cmGVR)
		n := reserveName(t, t.Name())
		m := &fakeMetrics{values: map[string]float64{}}
		first := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet),
			informer.WithMetricsProvider(m), informer.WithIdentifier(n.WithResource(cmGVR)))
		logs := newLogCapture()
		second := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(slog.New(logs)),
			informer.WithMetricsProvider(m), informer.WithReflectorOptions(reflector.Options{MetricsProvider: m}),
			informer.WithIdentifier(n.WithResource(cmGVR)))

		startSynced(t, first)
		startSynced(t, second)

		name := t.Name() + " /v1, Resource=configmaps"
		assert.Equal(t, map[string]float64{
			"lists/" + name:                 1,
			"watches/" + name:               1,
			"relists/" + name:               0,
			"watch_restarts/" + name:        0,
			"last_resource_version/" + name: 1,
		}, m.snapshot(), "the first informer's metrics alone")
		assert.Equal(t, "SharedIndexInformer "+name, first.Name())
		assert.Equal(t, "SharedIndexInformer "+name, second.Name(), "named, only not recording")
		assert.Contains(t, logs.all(), "informer: the informer's identity is not reserved (a second informer of its name and resource?); its metrics will not be recorded"+
			" informerName="+t.Name()+" resource=/v1, Resource=configmaps")
	})
}

// TestWithNameAndWithIdentifierTheLaterWins: both name the informer; the
// one given later decides.
//
// Diagram: none (metrics). client-go: none (one Identifier field)
func TestWithNameAndWithIdentifierTheLaterWins(t *testing.T) {
	t.Parallel()
	n := reserveName(t, t.Name())
	id := n.WithResource(cmGVR)

	byName := informer.NewSharedIndexInformer(nil, nil, 0, nil, informer.WithIdentifier(id), informer.WithName("plain"))
	byID := informer.NewSharedIndexInformer(nil, nil, 0, nil, informer.WithName("plain"), informer.WithIdentifier(id))

	assert.Equal(t, "SharedIndexInformer plain", byName.Name())
	assert.Equal(t, "SharedIndexInformer "+id.String(), byID.Name())
}

// TestFactoryWithInformerNameNamesEachInformerByItsResource: a factory
// given an InformerName reserves each of its resources under it once.
//
// Diagram: none (metrics). client-go: informers.WithInformerName
func TestFactoryWithInformerNameNamesEachInformerByItsResource(t *testing.T) {
	t.Parallel()
	srv := newServer(t, fakeapi.Options{})
	n := reserveName(t, t.Name())
	factory := informer.NewSharedInformerFactory(func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
		return srv.Resource(gvr).Namespace(ns)
	}, 0, informer.WithInformerName(n), informer.WithInformerOptions(informer.WithName("overridden"), informer.WithLogger(quiet)))

	gi, err := factory.ForResource(cmGVR, exampleCM())
	require.NoError(t, err)
	again, err := factory.ForResource(cmGVR, exampleCM())
	require.NoError(t, err)

	assert.Equal(t, "SharedIndexInformer "+t.Name()+" /v1, Resource=configmaps", gi.Informer().Name())
	assert.Same(t, gi.Informer(), again.Informer())
	assert.False(t, n.WithResource(cmGVR).Reserved(), "the factory's informer holds configmaps")
	assert.True(t, n.WithResource(podsGVR).Reserved(), "and nothing else")
}
