package leaderelection_test

import (
	"context"
	"fmt"
	"log/slog"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller/leaderelection"
	"github.com/informerlab/informerlab/fakeapi"
)

// Two candidates share the Lease "demo". Each attempt is one read and at
// most one write: the first creates the Lease and holds it; the second
// finds it held and renewed a moment ago, and waits; once the holder
// releases it (holder cleared), the second takes it at its next attempt.
// Run makes these attempts every RetryPeriod.
func Example() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	leases := srv.Resource(schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}).Namespace("kube-system")
	quiet := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	candidate := func(id string) *leaderelection.LeaderElector {
		le, err := leaderelection.NewLeaderElector(leaderelection.Options{Client: leases, Name: "demo", Identity: id}, quiet)
		if err != nil {
			panic(err)
		}
		return le
	}
	a, b := candidate("a"), candidate("b")

	fmt.Println("a tries:", a.TryAcquireOrRenew(ctx), "holder:", a.ObservedRecord().HolderIdentity)
	fmt.Println("b tries:", b.TryAcquireOrRenew(ctx), "holder:", b.ObservedRecord().HolderIdentity)
	a.Release(ctx)
	fmt.Println("a released; b tries:", b.TryAcquireOrRenew(ctx), "holder:", b.ObservedRecord().HolderIdentity)
	// Output:
	// a tries: true holder: a
	// b tries: false holder: a
	// a released; b tries: true holder: b
}
