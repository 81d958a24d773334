package cache

import (
	"errors"

	"github.com/informerlab/informerlab/deltafifo"
)

// FIFO is informerlab's classic FIFO, with the store methods client-go's
// fifo_test.go defines over the private items (List, Get, GetByKey), given
// through the public Queued and KeyOf; ListKeys is informerlab's own.
type FIFO struct {
	*deltafifo.FIFO
}

func NewFIFO(keyFunc KeyFunc) *FIFO { return &FIFO{deltafifo.NewFIFO(keyFunc)} }

func (f *FIFO) Pop(process PopProcessFunc) (interface{}, error) { return f.FIFO.Pop(process) }

func (f *FIFO) List() []interface{} { return f.Queued() }

func (f *FIFO) Get(obj interface{}) (item interface{}, exists bool, err error) {
	key, err := f.KeyOf(obj)
	if err != nil {
		return nil, false, err
	}
	return f.GetByKey(key)
}

func (f *FIFO) GetByKey(key string) (item interface{}, exists bool, err error) {
	for _, obj := range f.Queued() {
		if k, _ := f.KeyOf(obj); k == key {
			return obj, true, nil
		}
	}
	return nil, false, nil
}

// Transaction makes the FIFO an informerlab Store, which TestFIFOCache
// needs; client-go's Store has no Transaction, so no test calls it.
func (f *FIFO) Transaction(...Transaction) error {
	return errors.New("cache shim: the classic FIFO takes no transactions")
}
