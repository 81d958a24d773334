package sharding_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// forbiddenLeases is a LeaseClient refused everything, as a
// ServiceAccount without a Role for Leases is by an RBAC API server.
type forbiddenLeases struct{}

func forbidden(verb string) error {
	return apierrors.NewForbidden(ctrltest.LeasesGVR.GroupResource(), "",
		errFrom(`User "system:serviceaccount:demo:ctrl" cannot `+verb+` resource "leases" in API group "coordination.k8s.io"`))
}

func (forbiddenLeases) Get(context.Context, string, metav1.GetOptions) (runtime.Object, error) {
	return nil, forbidden("get")
}

func (forbiddenLeases) Create(context.Context, runtime.Object, metav1.CreateOptions) (runtime.Object, error) {
	return nil, forbidden("create")
}

func (forbiddenLeases) Update(context.Context, runtime.Object, metav1.UpdateOptions) (runtime.Object, error) {
	return nil, forbidden("update")
}

func (forbiddenLeases) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return nil, forbidden("list")
}

type errFrom string

func (e errFrom) Error() string { return string(e) }

// A ring member whose Leases the server refuses (403 Forbidden: its RBAC
// role lacks them) logs each refusal at ERROR, with the server's message
// naming the verb and the resource, instead of retrying at INFO where a
// replica run at --log-level warn shows nothing while it never gets a
// bucket.
// Diagram: none (what may reach step 9). client-go: tools/leaderelection logs a failed acquire at error ("error retrieving resource lock").
func TestShardMemberRefusedItsLeasesLogsTheRefusalAsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs ctrltest.LogBuffer
		m, err := sharding.NewMember(sharding.Options{
			Client: forbiddenLeases{}, Ring: "foos", Identity: "a", Logger: logs.Logger(),
		})
		assert.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- m.Start(ctx) }()

		time.Sleep(5 * time.Second)
		cancel()
		<-done

		var refusals []string
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, "forbidden") {
				refusals = append(refusals, line)
			}
		}
		assert.NotEmpty(t, refusals)
		for _, line := range refusals {
			assert.Contains(t, line, "level=ERROR", "a refusal is an error: %s", line)
		}
		assert.Contains(t, logs.String(), `msg="could not list the ring's Leases"`)
		assert.Contains(t, logs.String(), `cannot list resource \"leases\" in API group \"coordination.k8s.io\"`)
		assert.Contains(t, logs.String(), `msg="could not read the lease"`)
		assert.Empty(t, m.Held(), "no bucket without the Leases")
	})
}
