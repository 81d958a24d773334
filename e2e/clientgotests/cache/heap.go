package cache

import "github.com/informerlab/informerlab/deltafifo"

type (
	Heap     = deltafifo.Heap
	LessFunc = deltafifo.LessFunc
)

var NewHeap = deltafifo.NewHeap

// closedMsg is the text of client-go's error for a closed heap, which its
// tests compare with; informerlab's closed heap returns ErrFIFOClosed.
//
//lint:ignore U1000 compared with by client-go's tests, laid over this package at run time
var closedMsg = deltafifo.ErrFIFOClosed.Error()
