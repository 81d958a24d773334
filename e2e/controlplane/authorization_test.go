package controlplane_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/e2e/controlplane"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
)

// TestAuthorizationModeRBACRefusesWhatNoRoleGrants: a ServiceAccount with
// no binding, given a token by the TokenRequest API, may list ConfigMaps on
// the default control plane (AlwaysAllow) and is refused with 403 on one
// started with AuthorizationMode "RBAC", where the admin token (in
// system:masters) still may. The mode replaces AlwaysAllow rather than
// adding to it: kube-apiserver would allow everything if AlwaysAllow came
// first in the list.
func TestAuthorizationModeRBACRefusesWhatNoRoleGrants(t *testing.T) {
	rbac := testenv.StartControlPlane(t, "rbac", controlplane.Options{AuthorizationMode: "RBAC"})
	listAs := func(cp *controlplane.ControlPlane) error {
		testenv.KubectlOn(t, cp, "create", "serviceaccount", "nobody", "-n", "default")
		t.Cleanup(func() {
			_, _ = testenv.KubectlStdinOn(t, cp, "", "delete", "serviceaccount", "nobody", "-n", "default")
		})
		token := strings.TrimSpace(testenv.KubectlOn(t, cp, "create", "token", "nobody", "-n", "default"))
		_, err := testenv.KubectlStdinOn(t, cp, "", "--token", token, "get", "configmaps", "-n", "default")
		return err
	}

	allowAll := listAs(testenv.ControlPlane(t))
	refused := listAs(rbac)
	_, admin := testenv.KubectlStdinOn(t, rbac, "", "get", "configmaps", "-n", "default")

	assert.NoError(t, allowAll, "AlwaysAllow: anyone authenticated")
	require.Error(t, refused)
	assert.Contains(t, refused.Error(), `User "system:serviceaccount:default:nobody" cannot list resource "configmaps"`)
	assert.NoError(t, admin, "system:masters may do anything")
}
