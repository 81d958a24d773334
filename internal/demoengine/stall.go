package demoengine

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/informer"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// defaultStallAfter is how long a Deployment may go without a status for
// its spec before the demo says that no Deployment controller seems to run.
// A real kube-controller-manager writes it within a second or so.
const defaultStallAfter = 10 * time.Second

// watchDeploymentStatus watches, through the Deployment cache, for
// Deployments the Foo controller made whose status never catches up with
// their spec (status.observedGeneration below metadata.generation). On a
// bare control plane (an API server with no kube-controller-manager, such
// as cmd/fakeapi) nothing writes that status, so the Foo would stay
// "Progressing, 0 of N" with no word why. After stallAfter it says so,
// once, and names the flag that plays the missing controller. It returns
// when ctx ends.
func watchDeploymentStatus(ctx context.Context, n *narrator, deployments informer.Lister[*sc.Deployment], stallAfter time.Duration) {
	tick := time.NewTicker(max(stallAfter/4, 10*time.Millisecond))
	defer tick.Stop()
	pending := map[types.UID]time.Time{} // since when each Deployment has lacked its status
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if stalled := stalledDeployment(deployments, pending, now, stallAfter); stalled != nil {
				n.say("\nDeployment %s/%s has had no status for its spec for %s (status.observedGeneration %d, generation %d): "+
					"no Deployment controller seems to run on this server (a bare control plane, or cmd/fakeapi, has no kube-controller-manager), "+
					"so its Foo will stay Progressing. Run the demo with --simulate-deployments to play that controller's part.\n",
					stalled.Namespace, stalled.Name, stallAfter, stalled.Status.ObservedGeneration, stalled.Generation)
				return
			}
		}
	}
}

// stalledDeployment updates pending (when each Foo-owned Deployment without
// an up-to-date status was first seen so) and returns one that has waited
// stallAfter, or nil.
func stalledDeployment(deployments informer.Lister[*sc.Deployment], pending map[types.UID]time.Time, now time.Time, stallAfter time.Duration) *sc.Deployment {
	all, err := deployments.List(labels.Everything())
	if err != nil {
		return nil
	}
	seen := map[types.UID]bool{}
	for _, d := range all {
		if !ownedByFoo(d) || d.Status.ObservedGeneration >= d.Generation {
			continue
		}
		seen[d.UID] = true
		since, ok := pending[d.UID]
		if !ok {
			pending[d.UID] = now
			continue
		}
		if now.Sub(since) >= stallAfter {
			return d
		}
	}
	for uid := range pending {
		if !seen[uid] {
			delete(pending, uid) // caught up, or gone
		}
	}
	return nil
}

func ownedByFoo(d *sc.Deployment) bool {
	for _, ref := range d.OwnerReferences {
		if ref.Kind == sc.FooGVK.Kind && ref.APIVersion == sc.FooGVK.GroupVersion().String() {
			return true
		}
	}
	return false
}
