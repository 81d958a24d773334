package bench

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Namespaces and Apps are how many distinct namespaces and "app" label
// values the benchmark objects are spread over, round robin.
const (
	Namespaces = 10
	Apps       = 100
)

// AppLabel is the label the second index of the indexer benchmarks files
// objects under.
const AppLabel = "app"

// NewObject returns benchmark object number i at resourceVersion rv: a
// small typed object both implementations accept (a ConfigMap's metadata),
// in namespace "ns-(i mod Namespaces)", named "obj-i", labelled
// app=app-((i+appShift) mod Apps).
func NewObject(i, rv, appShift int) *metav1.PartialObjectMetadata {
	o := &metav1.PartialObjectMetadata{}
	fillObject(o, i, rv, appShift)
	return o
}

func fillObject(o *metav1.PartialObjectMetadata, i, rv, appShift int) {
	o.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
	o.ObjectMeta = metav1.ObjectMeta{
		Namespace:       Namespace(i),
		Name:            Name(i),
		ResourceVersion: strconv.Itoa(rv),
		Labels:          map[string]string{AppLabel: App(i + appShift)},
	}
}

// Namespace returns the namespace of object i.
func Namespace(i int) string { return "ns-" + strconv.Itoa(i%Namespaces) }

// Name returns the name of object i.
func Name(i int) string { return fmt.Sprintf("obj-%06d", i) }

// Key returns the namespace/name key of object i.
func Key(i int) string { return Namespace(i) + "/" + Name(i) }

// App returns the app label value of object i (with no shift).
func App(i int) string { return "app-" + strconv.Itoa(i%Apps) }

// NewList returns a list of objects 0..n-1, object i at resourceVersion
// rv(i), the list at listRV, laid out as a decoded List response is: one
// array of items.
func NewList(n, listRV int, rv func(i int) int) *metav1.PartialObjectMetadataList {
	list := &metav1.PartialObjectMetadataList{Items: make([]metav1.PartialObjectMetadata, n)}
	for i := range list.Items {
		fillObject(&list.Items[i], i, rv(i), 0)
	}
	list.ResourceVersion = strconv.Itoa(listRV)
	return list
}

// AppIndexFunc files an object under the value of its "app" label. Both
// implementations use this same function for their second index.
func AppIndexFunc(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("bench: app index: %w", err)
	}
	v, ok := m.GetLabels()[AppLabel]
	if !ok {
		return nil, nil
	}
	return []string{v}, nil
}
