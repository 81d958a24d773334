// Package shardselectortest checks informerlab's shard selector parser
// (internal/shardselector, which fakeapi serves and the sharded Reflector
// validates with) against kube-apiserver's own, k8s.io/apiserver's
// pkg/sharding.Parse at v0.37.2, on valid and invalid expressions: both
// accept the same ones with the same ranges and canonical form, and refuse
// the same ones, in the same words except for syntax errors, whose wording
// is each parser's own.
//
// It needs no control plane: k8s.io/apiserver is a dependency of this module
// only, so the main module stays free of cel-go.
//
// Run with: cd e2e/controlplane && go test ./shardselectortest -v
package shardselectortest
