package controllersuite_test

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// simple is the smallest Reconciler that passes the suite: what a learner
// might write for labs/7-controller, with no finalizer, conditions or
// Events. Its switches turn one part off, for the mutants.
type simple struct {
	c *manager.Client

	noFinalizer bool // no finalizer: the Foo goes at once, the cleanup is left to chance
	noOwner     bool // create the Deployment without an owner reference
	noStatus    bool // never write the Foo's status
	anyOwner    bool // scale a Deployment whoever controls it
	noDefault   bool // take a nil spec.replicas as 0

	swallowErrors   bool // a failed write is dropped (Reconcile returns nil), so the queue never retries
	createEveryTime bool // create the Deployment on every Reconcile; AlreadyExists counts as done
	statusViaUpdate bool // write the status with Update, which the status subresource ignores
	nameFromFoo     bool // name the Deployment after the Foo, not spec.deploymentName
	noScale         bool // set replicas when creating the Deployment, never afterwards

	statusFromSpec       bool // the status reports spec.replicas, not the Deployment's available replicas
	statusEveryTime      bool // the status is written on every Reconcile, changed or not
	blindScale           bool // scale by updating a freshly built Deployment, with no resourceVersion
	replicasLeftToServer bool // a nil spec.replicas goes to the Deployment as nil, and is never scaled back
	goneIsError          bool // a Foo that is not found is an error
	cleanupNotFoundFails bool // cleanup returns the Delete's NotFound
	cleanupByName        bool // cleanup deletes the Deployment of that name, whoever controls it
}

func (r *simple) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	res, err := r.reconcile(ctx, req)
	if r.swallowErrors && err != nil {
		return controller.Result{}, nil
	}
	return res, err
}

func (r *simple) reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	foo := &sc.Foo{}
	if err := r.c.Get(ctx, req.NamespacedName, foo); err != nil {
		if r.goneIsError {
			return controller.Result{}, err
		}
		return controller.Result{}, manager.IgnoreNotFound(err)
	}
	if !r.noFinalizer {
		fin := controller.Finalizer{Name: sc.FinalizerName, Cleanup: r.cleanup, Update: r.c.Update}
		if deleting, err := fin.Finalize(ctx, foo); deleting || err != nil {
			return controller.Result{}, err
		}
	}
	want := int32(1)
	if foo.Spec.Replicas != nil {
		want = *foo.Spec.Replicas
	} else if r.noDefault {
		want = 0
	}
	leftToServer := r.replicasLeftToServer && foo.Spec.Replicas == nil
	if r.createEveryTime {
		err := r.c.Create(ctx, r.deploymentFor(foo, want))
		if !apierrors.IsAlreadyExists(err) {
			return controller.Result{}, err
		}
		return controller.Result{}, nil
	}
	dep := &sc.Deployment{}
	err := r.c.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: r.deploymentName(foo)}, dep)
	if apierrors.IsNotFound(err) {
		dep := r.deploymentFor(foo, want)
		if leftToServer {
			dep.Spec.Replicas = nil
		}
		return controller.Result{}, r.c.Create(ctx, dep)
	}
	if err != nil {
		return controller.Result{}, err
	}
	if !r.anyOwner && !metav1.IsControlledBy(dep, foo) {
		return controller.Result{}, fmt.Errorf("deployment %s is not controlled by foo %s", dep.Name, foo.Name)
	}
	if leftToServer {
		// Whatever the Deployment has, the server's default stands.
	} else if !r.noScale && r.blindScale && (dep.Spec.Replicas == nil || *dep.Spec.Replicas != want) {
		if err := r.c.Update(ctx, r.deploymentFor(foo, want)); err != nil {
			return controller.Result{}, err
		}
	} else if !r.noScale && (dep.Spec.Replicas == nil || *dep.Spec.Replicas != want) {
		base := dep.DeepCopy()
		dep.Spec.Replicas = &want
		if err := r.c.Patch(ctx, dep, manager.MergeFrom(base)); err != nil {
			return controller.Result{}, err
		}
	}
	available := dep.Status.AvailableReplicas
	if r.statusFromSpec {
		available = want
	}
	if !r.noStatus && (foo.Status.AvailableReplicas != available || r.statusEveryTime) {
		foo.Status.AvailableReplicas = available
		if r.statusViaUpdate {
			return controller.Result{}, r.c.Update(ctx, foo)
		}
		return controller.Result{}, r.c.UpdateStatus(ctx, foo)
	}
	return controller.Result{}, nil
}

// cleanup deletes the Foo's Deployment, if it is there and the Foo's.
func (r *simple) cleanup(ctx context.Context, obj controller.Object) error {
	foo := obj.(*sc.Foo)
	dep := &sc.Deployment{}
	if !r.cleanupByName {
		err := r.c.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName}, dep)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !metav1.IsControlledBy(dep, foo) {
			return nil
		}
	} else {
		dep.Namespace, dep.Name = foo.Namespace, foo.Spec.DeploymentName
	}
	err := r.c.Delete(ctx, dep)
	if r.cleanupNotFoundFails {
		return err
	}
	return manager.IgnoreNotFound(err)
}

func (r *simple) deploymentFor(foo *sc.Foo, replicas int32) *sc.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	d := &sc.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: r.deploymentName(foo), Namespace: foo.Namespace},
		Spec: sc.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: sc.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       sc.PodSpec{Containers: []sc.Container{{Name: "nginx", Image: "nginx:latest"}}},
			},
		},
	}
	if !r.noOwner {
		d.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(foo, sc.FooGVK)}
	}
	return d
}

// deploymentName is the name of foo's Deployment.
func (r *simple) deploymentName(foo *sc.Foo) string {
	if r.nameFromFoo {
		return foo.Name
	}
	return foo.Spec.DeploymentName
}
