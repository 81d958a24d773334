package leasecut_test

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/leasecut"
)

// Before Cut the client reaches the server; after it, every call fails, as
// a dead replica's would.
func Example() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	leases := leasecut.New(srv.Resource(schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}).Namespace("kube-system"))

	_, before := leases.List(context.Background(), metav1.ListOptions{})
	leases.Cut()
	_, after := leases.List(context.Background(), metav1.ListOptions{})

	fmt.Println("before the cut:", before)
	fmt.Println("after the cut:", errors.Is(after, leasecut.ErrCut))
	// Output:
	// before the cut: <nil>
	// after the cut: true
}
