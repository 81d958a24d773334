package samplecontroller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Deployment is the part of an apps/v1 Deployment that the Foo controller
// and the DeploymentSimulator read and write. A real Deployment has many
// more fields; this type would drop them, so the controller never writes a
// Deployment it decoded: it creates new ones, and changes existing ones
// only with merge patches of the fields it owns (see FooReconciler).
//
// client-go: k8s.io/api/apps/v1.Deployment (a subset).
type Deployment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DeploymentSpec   `json:"spec"`
	Status DeploymentStatus `json:"status,omitempty"`
}

// DeploymentSpec is the desired state of a Deployment.
//
// client-go: k8s.io/api/apps/v1.DeploymentSpec (a subset).
type DeploymentSpec struct {
	// Replicas is the number of pods wanted. nil means 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Selector picks the Deployment's pods by label.
	Selector *metav1.LabelSelector `json:"selector"`
	// Template is what each pod looks like.
	Template PodTemplateSpec `json:"template"`
}

// PodTemplateSpec describes the pods a Deployment creates.
//
// client-go: k8s.io/api/core/v1.PodTemplateSpec (a subset).
type PodTemplateSpec struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PodSpec `json:"spec,omitempty"`
}

// PodSpec lists a pod's containers. As in the real type, a strategic
// merge patch merges containers by name.
//
// client-go: k8s.io/api/core/v1.PodSpec (a subset).
type PodSpec struct {
	Containers []Container `json:"containers" patchStrategy:"merge" patchMergeKey:"name"`
}

// Container is one container of a pod: a name and an image.
//
// client-go: k8s.io/api/core/v1.Container (a subset).
type Container struct {
	Name  string `json:"name"`
	Image string `json:"image,omitempty"`
}

// DeploymentStatus is what the Deployment controller (here: the
// DeploymentSimulator) last observed.
//
// client-go: k8s.io/api/apps/v1.DeploymentStatus (a subset).
//
// A real API server validates the counts against each other: none may
// exceed Replicas, and AvailableReplicas may not exceed ReadyReplicas. A
// status with AvailableReplicas alone is refused.
type DeploymentStatus struct {
	// ObservedGeneration is the metadata.generation this status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas is how many pods the Deployment has.
	Replicas int32 `json:"replicas,omitempty"`
	// UpdatedReplicas is how many of them run the current pod template.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`
	// ReadyReplicas is how many of them are ready.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// AvailableReplicas is how many pods are up and available.
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
}

// DeploymentList is a list of Deployments, as List returns it.
//
// client-go: k8s.io/api/apps/v1.DeploymentList.
type DeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Deployment `json:"items"`
}

// DeepCopyInto copies d into out, sharing nothing.
func (d *Deployment) DeepCopyInto(out *Deployment) {
	*out = *d
	d.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	d.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a copy of d that shares nothing with it (nil for nil).
func (d *Deployment) DeepCopy() *Deployment {
	if d == nil {
		return nil
	}
	out := new(Deployment)
	d.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes Deployment a runtime.Object.
func (d *Deployment) DeepCopyObject() runtime.Object {
	if c := d.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies s into out, sharing nothing.
func (s *DeploymentSpec) DeepCopyInto(out *DeploymentSpec) {
	*out = *s
	if s.Replicas != nil {
		out.Replicas = new(int32)
		*out.Replicas = *s.Replicas
	}
	out.Selector = s.Selector.DeepCopy()
	s.Template.DeepCopyInto(&out.Template)
}

// DeepCopyInto copies t into out, sharing nothing.
func (t *PodTemplateSpec) DeepCopyInto(out *PodTemplateSpec) {
	*out = *t
	t.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if t.Spec.Containers != nil {
		out.Spec.Containers = make([]Container, len(t.Spec.Containers))
		copy(out.Spec.Containers, t.Spec.Containers)
	}
}

// DeepCopyInto copies l into out, sharing nothing.
func (l *DeploymentList) DeepCopyInto(out *DeploymentList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Deployment, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l that shares nothing with it (nil for nil).
func (l *DeploymentList) DeepCopy() *DeploymentList {
	if l == nil {
		return nil
	}
	out := new(DeploymentList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes DeploymentList a runtime.Object.
func (l *DeploymentList) DeepCopyObject() runtime.Object {
	if c := l.DeepCopy(); c != nil {
		return c
	}
	return nil
}
