package leasecut

import (
	"context"
	"errors"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/controller/sharding"
)

// ErrCut is every call's error once the client is cut.
var ErrCut = errors.New("leasecut: the Lease client was cut: the replica is dead")

// Client is a sharding.LeaseClient that can be cut. It is safe for
// concurrent use.
type Client struct {
	inner sharding.LeaseClient
	cut   atomic.Bool
}

// New wraps inner.
func New(inner sharding.LeaseClient) *Client { return &Client{inner: inner} }

// Cut makes every later call fail with ErrCut. It cannot be undone.
func (c *Client) Cut() { c.cut.Store(true) }

// IsCut reports whether Cut was called.
func (c *Client) IsCut() bool { return c.cut.Load() }

// Get reads a Lease, unless the client is cut.
func (c *Client) Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error) {
	if c.IsCut() {
		return nil, ErrCut
	}
	return c.inner.Get(ctx, name, opts)
}

// Create creates a Lease, unless the client is cut.
func (c *Client) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	if c.IsCut() {
		return nil, ErrCut
	}
	return c.inner.Create(ctx, obj, opts)
}

// Update writes a Lease, unless the client is cut.
func (c *Client) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	if c.IsCut() {
		return nil, ErrCut
	}
	return c.inner.Update(ctx, obj, opts)
}

// List lists the Leases, unless the client is cut.
func (c *Client) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if c.IsCut() {
		return nil, ErrCut
	}
	return c.inner.List(ctx, opts)
}
