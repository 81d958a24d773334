package fakeapi

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Models of the built-in kinds. fakeapi stores every object as
// unstructured JSON; these structs only describe the fields of the
// built-in kinds, with the same json, patchStrategy and patchMergeKey tags
// as k8s.io/api's types (which this module does not import), so that the
// server can publish their OpenAPI schemas, apply strategic merge patches
// to them and tell unknown fields from known ones. They are never
// instantiated.

// configMapModel models core/v1 ConfigMap.
type configMapModel struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" description:"Standard object's metadata."`
	Immutable         *bool             `json:"immutable,omitempty" description:"If set to true, only object metadata can be modified; data and binaryData cannot."`
	Data              map[string]string `json:"data,omitempty" description:"Data contains the configuration data: UTF-8 values, keys of alphanumerics, '-', '_' or '.'."`
	BinaryData        map[string][]byte `json:"binaryData,omitempty" description:"BinaryData contains binary configuration data, base64 encoded. Keys must not also appear in data."`
}

// secretModel models core/v1 Secret.
type secretModel struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" description:"Standard object's metadata."`
	Immutable         *bool             `json:"immutable,omitempty" description:"If set to true, only object metadata can be modified; data cannot."`
	Data              map[string][]byte `json:"data,omitempty" description:"Data contains the secret data, base64 encoded: at most 1 MiB in all."`
	StringData        map[string]string `json:"stringData,omitempty" description:"Write-only convenience: stringData values are merged into data on write, over data's values."`
	Type              string            `json:"type,omitempty" description:"Used to facilitate programmatic handling of secret data (default Opaque)."`
}

// namespaceModel models core/v1 Namespace.
type namespaceModel struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" description:"Standard object's metadata."`
	Spec              namespaceSpecModel   `json:"spec,omitempty" description:"Spec defines the behavior of the Namespace."`
	Status            namespaceStatusModel `json:"status,omitempty" description:"Status describes the current status of a Namespace."`
}

type namespaceSpecModel struct {
	Finalizers []string `json:"finalizers,omitempty" description:"Finalizers is an opaque list of values that must be empty to permanently remove the namespace."`
}

type namespaceStatusModel struct {
	Phase      string                    `json:"phase,omitempty" description:"Phase is the current lifecycle phase of the namespace: Active or Terminating."`
	Conditions []namespaceConditionModel `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" description:"Represents the latest available observations of a namespace's current state."`
}

type namespaceConditionModel struct {
	Type               string      `json:"type" description:"Type of namespace controller condition."`
	Status             string      `json:"status" description:"Status of the condition, one of True, False, Unknown."`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" description:"Last time the condition transitioned from one status to another."`
	Reason             string      `json:"reason,omitempty" description:"Unique, one-word, CamelCase reason for the condition's last transition."`
	Message            string      `json:"message,omitempty" description:"Human-readable message indicating details about last transition."`
}

// eventModel models core/v1 Event.
type eventModel struct {
	metav1.TypeMeta     `json:",inline"`
	metav1.ObjectMeta   `json:"metadata" description:"Standard object's metadata."`
	InvolvedObject      objectReferenceModel  `json:"involvedObject" description:"The object that this event is about."`
	Reason              string                `json:"reason,omitempty" description:"A short, machine understandable string that gives the reason for the transition into the object's current status."`
	Message             string                `json:"message,omitempty" description:"A human-readable description of the status of this operation."`
	Source              eventSourceModel      `json:"source,omitempty" description:"The component reporting this event."`
	FirstTimestamp      metav1.Time           `json:"firstTimestamp,omitempty" description:"The time at which the event was first recorded."`
	LastTimestamp       metav1.Time           `json:"lastTimestamp,omitempty" description:"The time at which the most recent occurrence of this event was recorded."`
	Count               int32                 `json:"count,omitempty" description:"The number of times this event has occurred."`
	Type                string                `json:"type,omitempty" description:"Type of this event (Normal, Warning)."`
	EventTime           metav1.MicroTime      `json:"eventTime,omitempty" description:"Time when this Event was first observed."`
	Series              *eventSeriesModel     `json:"series,omitempty" description:"Data about the Event series this event represents or nil if it's a singleton Event."`
	Action              string                `json:"action,omitempty" description:"What action was taken/failed regarding to the Regarding object."`
	Related             *objectReferenceModel `json:"related,omitempty" description:"Optional secondary object for more complex actions."`
	ReportingController string                `json:"reportingComponent" description:"Name of the controller that emitted this Event."`
	ReportingInstance   string                `json:"reportingInstance" description:"ID of the controller instance."`
}

type objectReferenceModel struct {
	Kind            string    `json:"kind,omitempty" description:"Kind of the referent."`
	Namespace       string    `json:"namespace,omitempty" description:"Namespace of the referent."`
	Name            string    `json:"name,omitempty" description:"Name of the referent."`
	UID             types.UID `json:"uid,omitempty" description:"UID of the referent."`
	APIVersion      string    `json:"apiVersion,omitempty" description:"API version of the referent."`
	ResourceVersion string    `json:"resourceVersion,omitempty" description:"Specific resourceVersion to which this reference is made, if any."`
	FieldPath       string    `json:"fieldPath,omitempty" description:"If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement."`
}

type eventSourceModel struct {
	Component string `json:"component,omitempty" description:"Component from which the event is generated."`
	Host      string `json:"host,omitempty" description:"Node name on which the event is generated."`
}

type eventSeriesModel struct {
	Count            int32            `json:"count,omitempty" description:"Number of occurrences in this series up to the last heartbeat time."`
	LastObservedTime metav1.MicroTime `json:"lastObservedTime,omitempty" description:"Time of the last occurrence observed."`
}

// leaseModel models coordination.k8s.io/v1 Lease.
type leaseModel struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" description:"Standard object's metadata."`
	Spec              leaseSpecModel `json:"spec,omitempty" description:"Spec contains the specification of the Lease."`
}

type leaseSpecModel struct {
	HolderIdentity       *string           `json:"holderIdentity,omitempty" description:"The identity of the holder of a current lease."`
	LeaseDurationSeconds *int32            `json:"leaseDurationSeconds,omitempty" description:"The duration that candidates for a lease need to wait to force acquire it."`
	AcquireTime          *metav1.MicroTime `json:"acquireTime,omitempty" description:"When the current lease was acquired."`
	RenewTime            *metav1.MicroTime `json:"renewTime,omitempty" description:"When the current holder of a lease has last updated the lease."`
	LeaseTransitions     *int32            `json:"leaseTransitions,omitempty" description:"The number of transitions of a lease between holders."`
	Strategy             *string           `json:"strategy,omitempty" description:"The strategy for picking the leader for coordinated leader election."`
	PreferredHolder      *string           `json:"preferredHolder,omitempty" description:"Signals to a lease holder that the lease has a more optimal holder and should be given up."`
}

// builtinModels maps each built-in kind to its model.
var builtinModels = map[schema.GroupVersionKind]reflect.Type{
	{Version: "v1", Kind: "ConfigMap"}:                           reflect.TypeFor[configMapModel](),
	{Version: "v1", Kind: "Secret"}:                              reflect.TypeFor[secretModel](),
	{Version: "v1", Kind: "Namespace"}:                           reflect.TypeFor[namespaceModel](),
	{Version: "v1", Kind: "Event"}:                               reflect.TypeFor[eventModel](),
	{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}: reflect.TypeFor[leaseModel](),
}

// builtinModelNames gives the models the component names of the types they
// model, as the real server's OpenAPI names them.
var builtinModelNames = map[reflect.Type]string{
	reflect.TypeFor[configMapModel]():          "io.k8s.api.core.v1.ConfigMap",
	reflect.TypeFor[secretModel]():             "io.k8s.api.core.v1.Secret",
	reflect.TypeFor[namespaceModel]():          "io.k8s.api.core.v1.Namespace",
	reflect.TypeFor[namespaceSpecModel]():      "io.k8s.api.core.v1.NamespaceSpec",
	reflect.TypeFor[namespaceStatusModel]():    "io.k8s.api.core.v1.NamespaceStatus",
	reflect.TypeFor[namespaceConditionModel](): "io.k8s.api.core.v1.NamespaceCondition",
	reflect.TypeFor[eventModel]():              "io.k8s.api.core.v1.Event",
	reflect.TypeFor[objectReferenceModel]():    "io.k8s.api.core.v1.ObjectReference",
	reflect.TypeFor[eventSourceModel]():        "io.k8s.api.core.v1.EventSource",
	reflect.TypeFor[eventSeriesModel]():        "io.k8s.api.core.v1.EventSeries",
	reflect.TypeFor[leaseModel]():              "io.k8s.api.coordination.v1.Lease",
	reflect.TypeFor[leaseSpecModel]():          "io.k8s.api.coordination.v1.LeaseSpec",
}
