package manager_test

import (
	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/fakeapi"
)

// Both packages' resource handles are ResourceInterfaces as they are.
var (
	_ controller.ResourceInterface = (*fakeapi.ResourceClient)(nil)
	_ controller.ResourceInterface = (*client.ResourceClient)(nil)
	// A Finalizer writes through the Client as it is.
	_ = controller.Finalizer{Update: (*manager.Client)(nil).Update}
)
