// Package reflectortest runs the Reflector and the client of the main module
// against a real kube-apiserver and etcd (package controlplane): the paths a
// fake server can only imitate.
//
//	kube-apiserver v1.37.2 --- etcd v3.6.16
//	      ^   (watch cache for ConfigMaps; none for PodTemplates)
//	      | 1 List & Watch   (client.ResourceClient, configured from a kubeconfig)
//	 Reflector ---- 2 ----> a recording Store
//
// # What is checked
//
//   - The kubeconfig the control plane writes (certificate-authority-data and a
//     bearer token) is enough for client.LoadKubeconfig: list, watch, create,
//     update, delete.
//   - A list in pages follows the server's continue tokens.
//   - Bookmarks move the Reflector's resourceVersion on with no object change.
//   - The streaming list (Options.UseWatchList) is served by the real server:
//     initial events, the initial-events-end bookmark, then the same stream.
//   - After an etcd compaction, a watch of an uncached resource from an old
//     resourceVersion ends with 410 Expired, and the Reflector relists; a
//     paginated relist at that resourceVersion gets 410 too, and falls back to
//     a list at "".
//   - When the server ends a watch (its timeoutSeconds), the Reflector
//     re-watches from its last resourceVersion without relisting.
//   - While kube-apiserver is stopped, every attempt gets "connection
//     refused" and the Reflector backs off; once it is back, the Reflector
//     catches up.
//
// TestMain starts one control plane for the package (testenv.Main); each test
// works in its own namespace.
//
// Run with: cd e2e/controlplane && go test -race ./reflectortest
package reflectortest
