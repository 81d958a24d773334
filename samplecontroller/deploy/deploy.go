package deploy

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

var (
	//go:embed rbac.yaml
	rbac string
	//go:embed simulator-rbac.yaml
	simulatorRBAC string
	//go:embed webhooks.yaml
	webhooks string
)

// RBAC returns rbac.yaml: the Namespace samplecontroller-system, the
// ServiceAccount samplecontroller, the ClusterRole samplecontroller (Foos,
// Deployments, Events) and the Role samplecontroller-leases (the Leases of
// a sharded ring), each with its binding to the ServiceAccount.
func RBAC() string { return rbac }

// SimulatorRBAC returns simulator-rbac.yaml: the ClusterRole
// samplecontroller-deployment-simulator (update deployments/status) and its
// binding, for --simulate-deployments on a server without
// kube-controller-manager only.
func SimulatorRBAC() string { return simulatorRBAC }

// Webhooks returns webhooks.yaml: the Mutating- and
// ValidatingWebhookConfiguration of the Foo webhooks, calling the Service
// samplecontroller-webhook in samplecontroller-system, without caBundles.
func Webhooks() string { return webhooks }

// Rule is one rule of a Role or ClusterRole of a manifest: the verbs it
// allows on the resources of the API groups ("" is the core group).
//
// client-go: k8s.io/api rbac/v1.PolicyRule (the parts used here).
type Rule struct {
	// Role is the rule's role, "ClusterRole/samplecontroller" or
	// "Role/samplecontroller-system/samplecontroller-leases".
	Role string
	// Index is the rule's place in the role's rules, from 0.
	Index int

	APIGroups, Resources, Verbs []string
}

// String describes the rule as kubectl describe role lists it: resources
// with their group, then verbs, "foos.samplecontroller.k8s.io/status
// [update]".
func (r Rule) String() string {
	var rs []string
	for _, res := range r.Resources {
		res, sub, _ := strings.Cut(res, "/")
		for _, g := range r.APIGroups {
			name := res
			if g != "" {
				name += "." + g
			}
			if sub != "" {
				name += "/" + sub
			}
			rs = append(rs, name)
		}
	}
	return strings.Join(rs, ",") + " [" + strings.Join(r.Verbs, " ") + "]"
}

// Objects decodes manifest, YAML documents separated by "---", into one
// object per document. A document that is not an object with apiVersion
// and kind is an error.
func Objects(manifest string) ([]*unstructured.Unstructured, error) {
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("deploy: document %d: %w", len(objs)+1, err)
		}
		if m == nil {
			continue // an empty document
		}
		obj := &unstructured.Unstructured{Object: m}
		if obj.GetAPIVersion() == "" || obj.GetKind() == "" {
			return nil, fmt.Errorf("deploy: document %d has no apiVersion or kind", len(objs)+1)
		}
		objs = append(objs, obj)
	}
}

// Rules returns the rules of every Role and ClusterRole of manifest, in
// the order they are written.
func Rules(manifest string) ([]Rule, error) {
	objs, err := Objects(manifest)
	if err != nil {
		return nil, err
	}
	var rules []Rule
	for _, obj := range objs {
		role, raw, err := roleRules(obj)
		if err != nil {
			return nil, err
		}
		for i, r := range raw {
			rule := Rule{Role: role, Index: i}
			for field, dst := range map[string]*[]string{"apiGroups": &rule.APIGroups, "resources": &rule.Resources, "verbs": &rule.Verbs} {
				if *dst, _, err = unstructured.NestedStringSlice(r, field); err != nil {
					return nil, fmt.Errorf("deploy: %s rule %d: %w", role, i, err)
				}
			}
			rules = append(rules, rule)
		}
	}
	return rules, nil
}

// WithoutRule returns the objects of manifest with one rule taken out of
// its role: what applying the manifest without that rule grants.
func WithoutRule(manifest string, rule Rule) ([]*unstructured.Unstructured, error) {
	objs, err := Objects(manifest)
	if err != nil {
		return nil, err
	}
	found := false
	for _, obj := range objs {
		role, raw, err := roleRules(obj)
		if err != nil {
			return nil, err
		}
		if role != rule.Role || rule.Index < 0 || rule.Index >= len(raw) {
			continue
		}
		var rest []any
		for i, r := range raw {
			if i != rule.Index {
				rest = append(rest, r)
			}
		}
		if err := unstructured.SetNestedSlice(obj.Object, rest, "rules"); err != nil {
			return nil, fmt.Errorf("deploy: %s: %w", role, err)
		}
		found = true
	}
	if !found {
		return nil, fmt.Errorf("deploy: no rule %d in %s", rule.Index, rule.Role)
	}
	return objs, nil
}

// roleRules returns obj's role name and rules, or "" and none if obj is
// not a Role or ClusterRole.
func roleRules(obj *unstructured.Unstructured) (string, []map[string]any, error) {
	var role string
	switch obj.GetKind() {
	case "ClusterRole":
		role = "ClusterRole/" + obj.GetName()
	case "Role":
		role = "Role/" + obj.GetNamespace() + "/" + obj.GetName()
	default:
		return "", nil, nil
	}
	raw, _, err := unstructured.NestedSlice(obj.Object, "rules")
	if err != nil {
		return "", nil, fmt.Errorf("deploy: %s: %w", role, err)
	}
	rules := make([]map[string]any, len(raw))
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return "", nil, fmt.Errorf("deploy: %s rule %d is not an object", role, i)
		}
		rules[i] = m
	}
	return role, rules, nil
}
