package samplecontroller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Foo asks for a Deployment: one called Spec.DeploymentName, running
// Spec.Replicas copies of nginx. The Foo controller creates it, keeps its
// replicas in line, and reports in Status how many are available.
//
// client-go: sample-controller pkg/apis/samplecontroller/v1alpha1.Foo.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec"`
	Status FooStatus `json:"status,omitempty"`
}

// FooSpec is what the user wants.
//
// client-go: sample-controller pkg/apis/samplecontroller/v1alpha1.FooSpec.
type FooSpec struct {
	// DeploymentName names the Deployment, in the Foo's namespace, that the
	// Foo owns. Required; a DNS-1123 label.
	DeploymentName string `json:"deploymentName"`
	// Replicas is how many pods the Deployment runs, 0 to MaxReplicas. nil
	// means DefaultReplicas.
	Replicas *int32 `json:"replicas,omitempty"`
}

// FooStatus is what the controller last observed. Only the controller
// writes it, and only through the status subresource.
//
// client-go: sample-controller pkg/apis/samplecontroller/v1alpha1.FooStatus
// (plus the conditions an operator reports).
type FooStatus struct {
	// AvailableReplicas is copied from the Deployment's status.
	AvailableReplicas int32 `json:"availableReplicas"`
	// ObservedGeneration is the metadata.generation of the spec this
	// status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions holds one condition, ConditionReady, whose Reason says
	// why the Foo is or is not ready: ReasonAvailable, ReasonProgressing,
	// ReasonInvalidSpec or ReasonResourceExists.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// FooList is a list of Foos, as List returns it.
//
// client-go: sample-controller pkg/apis/samplecontroller/v1alpha1.FooList.
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Foo `json:"items"`
}

// DeepCopyInto copies f into out, sharing nothing.
func (f *Foo) DeepCopyInto(out *Foo) {
	*out = *f
	f.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	f.Spec.DeepCopyInto(&out.Spec)
	f.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of f that shares nothing with it (nil for nil).
func (f *Foo) DeepCopy() *Foo {
	if f == nil {
		return nil
	}
	out := new(Foo)
	f.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes Foo a runtime.Object.
func (f *Foo) DeepCopyObject() runtime.Object {
	if c := f.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies s into out, sharing nothing.
func (s *FooSpec) DeepCopyInto(out *FooSpec) {
	*out = *s
	if s.Replicas != nil {
		out.Replicas = new(int32)
		*out.Replicas = *s.Replicas
	}
}

// DeepCopyInto copies s into out, sharing nothing.
func (s *FooStatus) DeepCopyInto(out *FooStatus) {
	*out = *s
	if s.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(s.Conditions))
		for i := range s.Conditions {
			s.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

// DeepCopyInto copies l into out, sharing nothing.
func (l *FooList) DeepCopyInto(out *FooList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Foo, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l that shares nothing with it (nil for nil).
func (l *FooList) DeepCopy() *FooList {
	if l == nil {
		return nil
	}
	out := new(FooList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes FooList a runtime.Object.
func (l *FooList) DeepCopyObject() runtime.Object {
	if c := l.DeepCopy(); c != nil {
		return c
	}
	return nil
}
