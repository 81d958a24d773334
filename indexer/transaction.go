package indexer

import (
	"errors"
	"fmt"
)

// TransactionType says what one write of a [Transaction] does.
//
// client-go: tools/cache.TransactionType.
type TransactionType string

// The writes a transaction can hold.
const (
	TransactionTypeAdd    TransactionType = "Add"
	TransactionTypeUpdate TransactionType = "Update"
	TransactionTypeDelete TransactionType = "Delete"
)

// Transaction is one write of a batch given to [Store.Transaction]: an Add,
// Update or Delete of Object.
//
// client-go: tools/cache.Transaction.
type Transaction struct {
	Type   TransactionType
	Object any
}

// TransactionError reports the writes of a batch that failed. The others
// were applied: a batch is not all or nothing, it is many writes under one
// lock. SuccessfulIndices lists the applied ones, in order, so the caller can
// tell exactly those to its handlers.
//
// client-go: tools/cache.TransactionError.
type TransactionError struct {
	SuccessfulIndices []int
	TotalTransactions int
	Errors            []error
}

func (e *TransactionError) Error() string {
	return fmt.Sprintf("indexer: %d of %d writes in a transaction failed: %v",
		e.TotalTransactions-len(e.SuccessfulIndices), e.TotalTransactions, errors.Join(e.Errors...))
}

// Unwrap gives errors.Is and errors.As the individual failures.
func (e *TransactionError) Unwrap() []error { return e.Errors }

// Transaction applies txns in order, under one acquisition of the store's
// lock: readers see none of the batch or all of it, and a writer applying a
// thousand objects takes the lock once instead of a thousand times. A write
// that fails (its key cannot be computed, its object is nil or an IndexFunc
// fails on it) is skipped and leaves the store as it was; the others are
// applied. The result is nil, or a *TransactionError naming the writes that
// were applied.
//
// client-go: tools/cache.TransactionStore.Transaction.
func (c *cache) Transaction(txns ...Transaction) error {
	keys := make([]string, len(txns))
	var errs []error
	failed := make([]bool, len(txns))
	for i, txn := range txns {
		key, err := c.keyOf(txn.Object)
		if err == nil && txn.Type != TransactionTypeAdd && txn.Type != TransactionTypeUpdate && txn.Type != TransactionTypeDelete {
			err = fmt.Errorf("indexer: unknown transaction type %q", txn.Type)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("write %d: %w", i, err))
			failed[i] = true
			continue
		}
		keys[i] = key
	}

	c.store.mu.Lock()
	for i, txn := range txns {
		if failed[i] {
			continue
		}
		// Steps 4-5 (add object, store object & key), a batch at a time.
		if txn.Type == TransactionTypeDelete {
			c.store.deleteLocked(keys[i])
			continue
		}
		if err := c.store.putLocked(keys[i], txn.Object); err != nil {
			errs = append(errs, fmt.Errorf("write %d: %w", i, err))
			failed[i] = true
		}
	}
	c.store.mu.Unlock()

	if len(errs) == 0 {
		return nil
	}
	tErr := &TransactionError{TotalTransactions: len(txns), Errors: errs}
	for i := range txns {
		if !failed[i] {
			tErr.SuccessfulIndices = append(tErr.SuccessfulIndices, i)
		}
	}
	return tErr
}
