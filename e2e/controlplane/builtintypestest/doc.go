// Package builtintypestest keeps fakeapi's descriptions of built-in kinds
// true to k8s.io/api. fakeapi type-checks a Deployment the way
// kube-apiserver decodes one, with a description of the Go types behind it
// (fakeapi/builtintypes/*.txt: every struct, its JSON fields and their
// types), because the main module does not import k8s.io/api. This package
// writes the same description from the real types by reflection and checks
// that the two are equal, line for line.
//
// It needs no control plane. After a k8s.io/api upgrade, rewrite the files:
//
//	cd e2e/controlplane && go test ./builtintypestest -args -write
package builtintypestest
