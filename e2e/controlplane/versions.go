package controlplane

import "embed"

// The versions this package builds. They are the versions the rest of the
// project is written against: k8s.io/apimachinery v0.37.2 is the library half
// of Kubernetes v1.37.2, and etcd v3.6 is the etcd that release is tested with.
const (
	// KubernetesVersion is the kube-apiserver built from k8s.io/kubernetes.
	KubernetesVersion = "v1.37.2"
	// EtcdVersion is the etcd built from go.etcd.io/etcd/server/v3.
	EtcdVersion = "v3.6.16"
)

// buildModules holds one throwaway Go module per binary: go.mod, go.sum and a
// Go file, stored with a .txt suffix so that neither the go command nor go:embed
// takes them for part of this module.
//
//go:embed buildmod
var buildModules embed.FS

// binary describes how to build one of the two programs.
type binary struct {
	name    string // file name prefix in the cache: name-version
	version string
	dir     string // directory under buildmod
	pkg     string // the package go build builds, "." for the module's own main
	ldflags string
	about   string // how long the first build takes, for the log
}

var (
	kubeAPIServerBinary = binary{
		name:    "kube-apiserver",
		version: KubernetesVersion,
		dir:     "buildmod/kube-apiserver",
		pkg:     "k8s.io/kubernetes/cmd/kube-apiserver",
		// kube-apiserver reports its version from these variables; without them
		// it says v0.0.0-master and clients that check the version complain.
		ldflags: "-s -w" +
			" -X k8s.io/component-base/version.gitVersion=" + KubernetesVersion +
			" -X k8s.io/component-base/version.gitMajor=1" +
			" -X k8s.io/component-base/version.gitMinor=37",
		about: "about 4 minutes on an idle 2-core machine, 10 on a busy one, plus downloads",
	}
	etcdBinary = binary{
		name:    "etcd",
		version: EtcdVersion,
		dir:     "buildmod/etcd",
		pkg:     ".",
		ldflags: "-s -w",
		about:   "about a minute, plus downloads",
	}
)
