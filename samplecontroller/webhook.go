package samplecontroller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/controller/manager"
)

// The paths the Foo webhooks are served at, named as controller-runtime
// names them (verb, group with dots as dashes, version, kind). A
// MutatingWebhookConfiguration points at MutatePath, a
// ValidatingWebhookConfiguration at ValidatePath.
const (
	MutatePath   = "/mutate-samplecontroller-k8s-io-v1alpha1-foo"
	ValidatePath = "/validate-samplecontroller-k8s-io-v1alpha1-foo"
)

// FooDefaulter fills in spec.replicas (DefaultReplicas) when a Foo is
// created or updated without it. With the mutating webhook installed, the
// stored Foo says what the controller will do; without it, the controller
// applies the same default in memory and never writes it into the spec.
//
// client-go: controller-runtime admission.CustomDefaulter (the operator-sdk
// "defaulting webhook").
type FooDefaulter struct{}

// Default sets spec.replicas to DefaultReplicas when it is unset.
func (FooDefaulter) Default(_ context.Context, foo *Foo) error {
	if foo.Spec.Replicas == nil {
		replicas := DefaultReplicas
		foo.Spec.Replicas = &replicas
	}
	return nil
}

// FooValidator refuses a Foo the controller could not act on, before it is
// stored: the rules of validateFoo (which the CRD schema declares too), and
// the one rule no schema or CEL expression can state because it needs other
// objects — spec.deploymentName must not name a Deployment that another Foo
// controls, read from the Manager's cache, or from the API server on a
// sharded replica, whose cache holds only its share. Deletes are always
// allowed.
//
// client-go: controller-runtime admission.CustomValidator.
type FooValidator struct {
	// Reader reads Deployments. It must see every Deployment of the
	// namespace: the Manager's client (its cache) unsharded, the Manager's
	// API reader on a sharded replica.
	Reader manager.Reader
}

// ValidateCreate checks a new Foo.
func (v FooValidator) ValidateCreate(ctx context.Context, foo *Foo) ([]string, error) {
	return nil, v.validate(ctx, foo)
}

// ValidateUpdate checks an edited Foo. That deploymentName does not change
// once set is the CRD's CEL transition rule, not checked here.
func (v FooValidator) ValidateUpdate(ctx context.Context, _, foo *Foo) ([]string, error) {
	return nil, v.validate(ctx, foo)
}

// ValidateDelete allows every delete.
func (FooValidator) ValidateDelete(context.Context, *Foo) ([]string, error) {
	return nil, nil
}

func (v FooValidator) validate(ctx context.Context, foo *Foo) error {
	errs := validateFoo(foo)
	if len(errs) == 0 {
		taken, err := v.takenBy(ctx, foo)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("checking spec.deploymentName against the Deployments: %w", err))
		}
		if taken != "" {
			errs = append(errs, field.Invalid(field.NewPath("spec", "deploymentName"), foo.Spec.DeploymentName,
				fmt.Sprintf("Deployment %q is controlled by Foo %q: each Foo needs its own Deployment", foo.Spec.DeploymentName, taken)))
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(FooGVK.GroupKind(), foo.Name, errs)
	}
	return nil
}

// takenBy returns the name of the other Foo that controls the Deployment foo
// names, or "" if none does (no such Deployment, one foo itself controls, or
// one no Foo controls: the controller reports that as ResourceExists, since
// the Deployment may be deleted before the Foo is reconciled).
func (v FooValidator) takenBy(ctx context.Context, foo *Foo) (string, error) {
	var d Deployment
	err := v.Reader.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName}, &d)
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	owner := metav1.GetControllerOf(&d)
	if owner == nil || owner.Kind != FooGVK.Kind || owner.APIVersion != FooGVK.GroupVersion().String() || owner.Name == foo.Name {
		return "", nil
	}
	return owner.Name, nil
}

// registerWebhooks serves the Foo defaulter and validator on s.
func registerWebhooks(s *admission.Server, reader manager.Reader, opts Options) error {
	if err := s.Register(MutatePath, admission.Webhook(admission.DefaultingWebhook[*Foo](FooGVK, FooDefaulter{}), opts.Logger)); err != nil {
		return err
	}
	return s.Register(ValidatePath, admission.Webhook(admission.ValidatingWebhook[*Foo](FooGVK, FooValidator{Reader: reader}), opts.Logger))
}
