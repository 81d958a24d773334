// Package kubejson decodes JSON as the Kubernetes API server does: an object's
// keys must match a struct field's name exactly, case and all. It sits on the
// arrows that carry objects into the program, not on a step of the diagram:
// the client's responses and watch events (step 1) and the AdmissionReview a
// webhook is sent.
//
//	bytes from the API server --> kubejson.Unmarshal --> Go value
//	                                 "replicas" -> Replicas
//	                                 "Replicas" -> ignored, as the server ignores it
//
// # How it works
//
// Go's encoding/json matches keys to fields case-insensitively: it reads
// {"replicas":1000,"Replicas":1} into a field tagged `json:"replicas"` as 1,
// the last of the two keys that match. The API server decodes case-sensitively
// and stores 1000, so a program using encoding/json would judge, cache or act on
// an object the server does not hold. [Unmarshal] reads it as the server does:
// "Replicas" is an unknown field and is dropped, and the value is 1000.
//
// A key given twice ({"replicas":1,"replicas":2}) keeps its last value, as the
// API server does when it decodes without strict field validation; with
// fieldValidation=Strict the server refuses such a write instead. Numbers
// decoded into an interface value become int64 when they are integers, float64
// otherwise, as in unstructured objects.
//
// # Guarantees
//
//   - Unmarshal never matches a key to a field of another case, at any depth.
//     A type with an UnmarshalJSON method of its own decides for what is below
//     it; those of apimachinery and k8s.io/api decode only strings, numbers and
//     raw bytes that way.
//   - It is safe for concurrent use; it keeps no state.
//
// # Differences from client-go
//
// None in behaviour: this is apimachinery's util/json.Unmarshal (which calls
// sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts), the decoding under
// every JSON serializer of client-go and kube-apiserver, under one name that
// the client and the admission webhook share.
//
// # Read next
//
// The Example (go test ./internal/kubejson -run Example -v), then the client
// package, whose every decoder calls it.
package kubejson
