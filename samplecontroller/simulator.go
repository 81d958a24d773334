package samplecontroller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
)

// DeploymentSimulator stands in for the Deployment controller of
// kube-controller-manager, which fakeapi does not have (nor does a bare
// kube-apiserver, such as e2e/controlplane's): it reports every
// Deployment's spec.replicas pods as there, updated, ready and available at
// once, by writing status.replicas, updatedReplicas, readyReplicas,
// availableReplicas and observedGeneration through the status subresource
// (a real API server refuses more available than ready, or than replicas).
// Without it a Foo's status would stay at 0 available for ever.
//
// It is a Reconciler like any other, with its own controller
// (SimulatorControllerName) watching Deployments. It writes only when the
// status differs, so its own status write, which comes back to it as an
// update event, ends there. It creates no pods and knows nothing of
// rollouts.
//
// Never run it against a cluster with kube-controller-manager: the real
// Deployment controller owns that status, and the simulator's status writes
// (of the Deployment subset type) would replace the real status fields it
// does not know.
//
// client-go: none (kube-controller-manager's deployment controller, reduced
// to one line of arithmetic).
type DeploymentSimulator struct {
	client *manager.Client // reads from the cache, writes to the API
	obs    Observer
}

// Reconcile makes one Deployment's status say that spec.replicas pods are
// available.
func (s *DeploymentSimulator) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	// Step 9 (get object for key).
	dep := &Deployment{} // the client's copy: ours to modify
	err := s.client.Get(ctx, req.NamespacedName, dep)
	if s.obs != nil {
		s.obs(listerGetEvent(SimulatorControllerName, "deployments", req.Namespace, req.Name, err))
	}
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if dep.DeletionTimestamp != nil {
		return controller.Result{}, nil
	}
	n := int32(1)
	if dep.Spec.Replicas != nil {
		n = *dep.Spec.Replicas
	}
	want := DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n}
	if dep.Status == want {
		return controller.Result{}, nil
	}

	from := dep.Status.AvailableReplicas
	dep.Status = want
	err = s.client.UpdateStatus(ctx, dep)
	if s.obs != nil {
		s.obs(Event{Step: StepAPIWrite, Controller: SimulatorControllerName, Resource: "deployments",
			Key: req.String(), Verb: "update status", Err: err,
			Detail: fmt.Sprintf("availableReplicas %d -> %d", from, want.AvailableReplicas)})
	}
	return controller.Result{}, err
}
