package cache

import (
	"sync"

	"github.com/informerlab/informerlab/informer"
)

type (
	InformerName            = informer.InformerName
	InformerNameAndResource = informer.InformerNameAndResource
)

// shimNames are the InformerNames reserved through this package, which
// ResetInformerNamesForTesting releases.
var shimNames struct {
	mu    sync.Mutex
	names []*InformerName
}

func NewInformerName(name string) (*InformerName, error) {
	n, err := informer.NewInformerName(name)
	if err == nil {
		shimNames.mu.Lock()
		shimNames.names = append(shimNames.names, n)
		shimNames.mu.Unlock()
	}
	return n, err
}

// ResetInformerNamesForTesting is client-go's test hook over its registry:
// informerlab has none, so it releases every name reserved through this
// package, with the public Release.
func ResetInformerNamesForTesting() {
	shimNames.mu.Lock()
	names := shimNames.names
	shimNames.names = nil
	shimNames.mu.Unlock()
	for _, n := range names {
		n.Release()
	}
}
