package main

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/informer"
)

var (
	fooGVR    = schema.GroupVersionResource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Resource: "foos"}
	fooGK     = schema.GroupKind{Group: "samplecontroller.k8s.io", Kind: "Foo"}
	deployGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

const fooFinalizer = "samplecontroller.k8s.io/cleanup"

// resourceAPI is what both fakeapi's in-process ResourceClient and the HTTP
// client's ResourceClient offer, narrowed to one namespace.
type resourceAPI interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error)
	Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error)
	Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error)
	UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// apiFunc returns the client of a resource in a namespace.
type apiFunc func(gvr schema.GroupVersionResource, namespace string) resourceAPI

// fooReconciler is sample-controller's Foo controller, narrated: a Foo asks
// for a Deployment named spec.deploymentName with spec.replicas replicas, and
// reports the Deployment's available replicas in status.availableReplicas.
type fooReconciler struct {
	n           *narrator
	api         apiFunc
	foos        informer.Lister[*unstructured.Unstructured]
	deployments informer.Lister[*unstructured.Unstructured]
}

func (r *fooReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	r.n.step(tagGetKey, "foo-controller worker: Get() → %s", req)

	// Step 9: the Request is only a key; the object comes from the cache.
	cached, err := r.foos.Namespace(req.Namespace).Get(req.Name)
	if apierrors.IsNotFound(err) {
		r.n.step(tagListerGet, "Foo %s: not in the cache — it is gone, nothing to do", req)
		r.n.step(tagReconcile, "%s: done", req)
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	replicas, _, _ := unstructured.NestedInt64(cached.Object, "spec", "replicas")
	r.n.step(tagListerGet, "Foo %s: rv %s, generation %d, spec.replicas=%d%s",
		req, cached.GetResourceVersion(), cached.GetGeneration(), replicas, deletingNote(cached))
	foo := cached.DeepCopy() // never modify the cached object

	fin := controller.Finalizer{
		Name: fooFinalizer,
		Cleanup: func(ctx context.Context, obj controller.Object) error {
			name, _, _ := unstructured.NestedString(foo.Object, "spec", "deploymentName")
			r.n.step(tagReconcile, "%s: being deleted: finalizer cleanup deletes Deployment %s/%s", req, req.Namespace, name)
			err := r.write(ctx, "DELETE", "Deployment", req.Namespace+"/"+name, func(api resourceAPI) (runtime.Object, error) {
				return nil, api.Delete(ctx, name, metav1.DeleteOptions{})
			}, deployGVR, req.Namespace)
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		},
		Update: func(ctx context.Context, obj controller.Object) error {
			verb := "UPDATE (add finalizer)"
			if !controller.ContainsFinalizer(obj, fooFinalizer) {
				verb = "UPDATE (remove finalizer)"
			}
			out, err := r.writeObj(ctx, verb, "Foo", foo, func(api resourceAPI) (runtime.Object, error) {
				return api.Update(ctx, foo, metav1.UpdateOptions{})
			}, fooGVR)
			if err == nil {
				foo.SetResourceVersion(out.GetResourceVersion())
			}
			return err
		},
	}
	deleting, err := fin.Finalize(ctx, foo)
	if err != nil {
		return controller.Result{}, err
	}
	if deleting {
		r.n.step(tagReconcile, "%s: finalizer removed; the API server can now delete the Foo", req)
		return controller.Result{}, nil
	}

	name, _, _ := unstructured.NestedString(foo.Object, "spec", "deploymentName")
	if name == "" {
		// Invalid spec: report it, do not retry (a retry cannot fix it).
		r.n.step(tagReconcile, "%s: spec.deploymentName is empty: invalid, not retried", req)
		return controller.Result{}, nil
	}
	wrote := false
	dep, err := r.deployments.Namespace(req.Namespace).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		r.n.step(tagListerGet, "Deployment %s/%s: not in the cache", req.Namespace, name)
		created, err := r.writeObj(ctx, "CREATE", "Deployment", newDeployment(foo, name, replicas), func(api resourceAPI) (runtime.Object, error) {
			return api.Create(ctx, newDeployment(foo, name, replicas), metav1.CreateOptions{})
		}, deployGVR)
		if err != nil {
			return controller.Result{}, err
		}
		dep, wrote = created, true
	case err != nil:
		return controller.Result{}, err
	default:
		depReplicas, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
		avail, _, _ := unstructured.NestedInt64(dep.Object, "status", "availableReplicas")
		r.n.step(tagListerGet, "Deployment %s/%s: rv %s, spec.replicas=%d, status.availableReplicas=%d",
			req.Namespace, name, dep.GetResourceVersion(), depReplicas, avail)
		if !metav1.IsControlledBy(dep, foo) {
			return controller.Result{}, fmt.Errorf("deployment %s/%s exists and is not controlled by Foo %s: refusing to adopt it", req.Namespace, name, req)
		}
		if depReplicas != replicas {
			upd := dep.DeepCopy()
			_ = unstructured.SetNestedField(upd.Object, replicas, "spec", "replicas")
			out, err := r.writeObj(ctx, fmt.Sprintf("UPDATE (spec.replicas %d → %d)", depReplicas, replicas), "Deployment", upd, func(api resourceAPI) (runtime.Object, error) {
				return api.Update(ctx, upd, metav1.UpdateOptions{})
			}, deployGVR)
			if err != nil {
				return controller.Result{}, err
			}
			dep, wrote = out, true
		}
	}

	avail, _, _ := unstructured.NestedInt64(dep.Object, "status", "availableReplicas")
	have, found, _ := unstructured.NestedInt64(foo.Object, "status", "availableReplicas")
	if !found || have != avail {
		_ = unstructured.SetNestedField(foo.Object, avail, "status", "availableReplicas")
		if _, err := r.writeObj(ctx, fmt.Sprintf("UPDATE /status (availableReplicas=%d)", avail), "Foo", foo, func(api resourceAPI) (runtime.Object, error) {
			return api.UpdateStatus(ctx, foo, metav1.UpdateOptions{})
		}, fooGVR); err != nil {
			return controller.Result{}, err
		}
		wrote = true
	}
	if wrote {
		r.n.step(tagReconcile, "%s: done (available %d/%d)", req, avail, replicas)
	} else {
		r.n.step(tagReconcile, "%s: in sync (available %d/%d), nothing to do", req, avail, replicas)
	}
	return controller.Result{}, nil
}

func deletingNote(obj metav1.Object) string {
	if obj.GetDeletionTimestamp() != nil {
		return ", deletionTimestamp set"
	}
	return ""
}

// writeObj narrates one API write by the controller and returns the object
// the server stored.
func (r *fooReconciler) writeObj(ctx context.Context, verb, kind string, obj *unstructured.Unstructured,
	do func(api resourceAPI) (runtime.Object, error), gvr schema.GroupVersionResource) (*unstructured.Unstructured, error) {
	var stored *unstructured.Unstructured
	err := r.write(ctx, verb, kind, obj.GetNamespace()+"/"+obj.GetName(), func(api resourceAPI) (runtime.Object, error) {
		out, err := do(api)
		if err == nil {
			stored, err = toUnstructured(out)
		}
		return out, err
	}, gvr, obj.GetNamespace())
	return stored, err
}

func (r *fooReconciler) write(ctx context.Context, verb, kind, key string,
	do func(api resourceAPI) (runtime.Object, error), gvr schema.GroupVersionResource, ns string) error {
	return narratedWrite(r.n, stageWorker, "foo-controller", verb, kind, key, func() (runtime.Object, error) {
		return do(r.api(gvr, ns))
	})
}

// narratedWrite runs one API write and narrates it with its outcome.
func narratedWrite(n *narrator, stage int, who, verb, kind, key string, do func() (runtime.Object, error)) error {
	out, err := do()
	if err != nil {
		n.stepAt(stage, tagWrite, "%s: %s %s %s → %s", who, verb, kind, key, errorSummary(err))
		return err
	}
	rv := ""
	if out != nil {
		rv = " → rv " + objectRV(out)
	}
	n.stepAt(stage, tagWrite, "%s: %s %s %s%s", who, verb, kind, key, rv)
	return nil
}

func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, errors.Join(errors.New("demo: not an API object"), err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// newDeployment is the Deployment a Foo asks for, controlled by the Foo.
func newDeployment(foo *unstructured.Unstructured, name string, replicas int64) *unstructured.Unstructured {
	labels := map[string]any{"app": name, "controller": foo.GetName()}
	d := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   map[string]any{"name": name, "namespace": foo.GetNamespace()},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "nginx", "image": "nginx:latest"}}},
			},
		},
	}}
	yes := true
	d.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion: "samplecontroller.k8s.io/v1alpha1", Kind: "Foo",
		Name: foo.GetName(), UID: foo.GetUID(), Controller: &yes, BlockOwnerDeletion: &yes,
	}})
	return d
}

// newFoo is a Foo as a user would write it.
func newFoo(namespace, name, deploymentName string, replicas int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samplecontroller.k8s.io/v1alpha1",
		"kind":       "Foo",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       map[string]any{"deploymentName": deploymentName, "replicas": replicas},
	}}
}

// deploymentSimulator plays kube-controller-manager's Deployment controller,
// which fakeapi does not have: it makes status.availableReplicas follow
// spec.replicas, so that the Foo's status can converge.
type deploymentSimulator struct {
	n           *narrator
	api         apiFunc
	deployments informer.Lister[*unstructured.Unstructured]
}

func (s *deploymentSimulator) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	dep, err := s.deployments.Namespace(req.Namespace).Get(req.Name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	want, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
	have, found, _ := unstructured.NestedInt64(dep.Object, "status", "availableReplicas")
	if found && have == want {
		return controller.Result{}, nil
	}
	upd := dep.DeepCopy()
	_ = unstructured.SetNestedField(upd.Object, want, "status", "availableReplicas")
	_ = unstructured.SetNestedField(upd.Object, upd.GetGeneration(), "status", "observedGeneration")
	return controller.Result{}, narratedWrite(s.n, stageSimulator, "deployment simulator", fmt.Sprintf("UPDATE /status (availableReplicas=%d)", want),
		"Deployment", req.String(), func() (runtime.Object, error) {
			return s.api(deployGVR, req.Namespace).UpdateStatus(ctx, upd, metav1.UpdateOptions{})
		})
}
