package main

// list is the committed list: every test of client-go's tools/cache and
// util/workqueue that is not run against informerlab, or runs and is
// expected to fail, with the reason. Each group is one file, one kind and
// one reason; names that are not tests are the helpers the tests share
// (taken out with them because they do not compile against the shim).
// docs/mapping.md, "client-go's own tests", explains the kinds to a learner.
var list = groups(
	// util/workqueue

	group(wq, "delaying_queue_test.go", fakeClock,
		"steps a fake clock given in DelayingQueueConfig.Clock and reads the queue's private waiting list (waitingForQueue); informerlab's delaying-queue tests run in synctest bubbles instead",
		"TestSimpleQueue", "TestDeduping", "TestAddTwoFireEarly", "TestCopyShifting"),
	group(wq, "metrics_test.go", private,
		"builds the queue with the private newQueue or newQueueWithConfig, to shorten the metrics update period, on a fake clock; informerlab's workqueue/metrics_test.go checks the same seven metrics",
		"TestMetricShutdown", "TestMetrics"),
	group(wq, "rate_limiting_queue_test.go", private,
		"assembles the private rateLimitingType and delayingType by hand and reads their private waitingForAddCh",
		"TestRateLimitingQueue"),
	group(wq, "queue_test.go", leftOut,
		"plugs its own backing queue into QueueConfig.Queue to watch its Touch calls; informerlab's queue has one fixed backing FIFO, see docs/mapping.md",
		"TestCollapse", "TestCollapseWhileProcessing", "traceQueue"),

	// tools/cache

	// controller_test.go
	group(tc, "controller_test.go", private,
		"calls the private processDeltas or processDeltasInBatch (the process loop's body) with a hand-built store, and reads the queue's private logger",
		"TestProcessDeltasInBatch", "TestReplaceEvents", "TestResetWatch",
		"TestStoreResourceVersion", "TestStoreResourceVersionWithNonMetaTransform"),

	// delta_fifo_test.go
	group(tc, "delta_fifo_test.go", private,
		"reads the DeltaFIFO's private items or queue directly (f.items[key], len(f.queue)), or calls the test file's list, which reads them; the queue's contents after each step are what informerlab's deltafifo tests check through its invariants, and what its public DeltaFIFO.Queued shows",
		"TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue", "TestDeltaFIFO_addUpdate",
		"TestDeltaFIFO_enqueueingNoLister", "TestDeltaFIFO_enqueueingWithLister",
		"TestDeltaFIFO_ResyncNonExisting", "TestDeltaFIFO_Resync", "TestDeltaFIFO_DeleteExistingNonPropagated"),
	group(tc, "delta_fifo_test.go", private,
		"the test file's helpers over the DeltaFIFO's private items and queue; the shim gives listKeys and get, which the remaining tests call, through the public ListKeys and Queued",
		"DeltaFIFO.list", "DeltaFIFO.listLocked", "DeltaFIFO.listKeys", "DeltaFIFO.get", "DeltaFIFO.getByKey"),
	group(tc, "delta_fifo_test.go", private,
		"builds a DeltaFIFO literal with its private keyFunc",
		"TestDeltaFIFO_KeyOf"),

	// the_real_fifo_test.go
	group(tc, "the_real_fifo_test.go", private,
		"reads or sets the RealFIFO's private items, batchSize or emitAtomicEvents directly (len(f.items), f.items = append(...), f.batchSize = n, f.emitAtomicEvents = true), or calls the test file's bookmarkTest (no Bookmark delta here); the queued deltas in order are public here (RealFIFO.Queued), and informerlab's deltafifo tests check them through the package invariants after every step",
		"TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue", "TestRealFIFO_addUpdate",
		"TestRealFIFO_enqueueingWithLister", "TestRealFIFO_PopMultipleDeltaInBatch",
		"TestRealFIFO_PopBrokenItemsInBatch", "TestRealFIFO_ReplaceAtomic", "TestRealFIFO_ReplaceAtomicPop",
		"TestRealFIFO_ResyncAtomic"),
	group(tc, "the_real_fifo_test.go", private,
		"the test file's helper over the RealFIFO's private items and lock; the shim gives getItems, which the remaining tests call, through the public Queued",
		"RealFIFO.getItems"),
	group(tc, "the_real_fifo_test.go", private,
		"builds a RealFIFO literal with its private keyFunc",
		"TestRealFIFO_KeyOf"),

	// fifo_test.go
	group(tc, "fifo_test.go", private,
		"the test file's helpers over the classic FIFO's private items and lock; the shim gives List, Get and GetByKey, which the remaining tests call, through the public Queued and KeyOf, and ListKeys is public",
		"FIFO.List", "FIFO.ListKeys", "FIFO.Get", "FIFO.GetByKey"),

	// heap_test.go
	group(tc, "heap_test.go", private,
		"reads the Heap's private heapData directly (len(h.data.items), h.data.items[key].obj and .index, h.data.queue[0], h.data.Len()); informerlab's deltafifo/heap_test.go walks the same steps (AddIfNotPresent keeping the held object, Delete at the head, the tail and of a missing key, Update moving an object to the head and back) checking the heap invariant after every one",
		"TestHeap_AddIfNotPresent", "TestHeap_Delete", "TestHeap_Update"),

	// shared_informer_test.go
	group(tc, "shared_informer_test.go", private,
		"counts or looks up handlers in the informer's private processor (eventHandlerCount, isRegistered) or reads its private started flag (isStarted); informerlab shows the same through HasStarted and a registration's HasSynced and Done",
		"eventHandlerCount", "isStarted", "isRegistered", "TestSharedInformerRemoveHandler",
		"TestSharedInformerRemoveForeignHandler", "TestSharedInformerMultipleRegistration",
		"TestRemovingRemovedSharedInformer", "TestStateSharedInformer", "TestRemoveWhileActive"),
	group(tc, "shared_informer_test.go", fakeClock,
		"steps the fake clock it sets in the informer's private clock field, and reads the private processor's listeners",
		"TestResyncCheckPeriod", "TestSharedInformerWatchDisruption", "TestListenerResyncPeriods",
		"TestListenerResyncPeriodsDelayed"),
	group(tc, "shared_informer_test.go", private,
		"asks the test file's isRegistered, which looks the registration up in the informer's private processor; the rest of it, a late handler's replay and its registration's HasSyncedChecker, informerlab's informer/handlers_test.go checks",
		"TestAddWhileActive"),

	group(tc, "shared_informer_test.go", logOutput,
		"waits up to 90 s for klog's \"Observed a panic\" line at the handler's file and line, with a logger= name; informerlab logs a handler's panic through log/slog with its stack (to HandlerOptions.Logger when set), and delivers the next notification at once where client-go pauses a second",
		"TestEventPanics"),

	// store_test.go, thread_safe_store_test.go, index_test.go, listers_test.go
	group(tc, "store_test.go", leftOut,
		"needs the store option WithTransformer; informerlab transforms in one place, the queue (deltafifo.Options.Transformer), before anything is cached (docs/mapping.md)",
		"TestCacheWithTransformer"),
	group(tc, "store_test.go", private,
		"asserts the store to the private cache type and reads its metrics field",
		"TestWithStoreMetricsDefaulting"),
	group(tc, "store_test.go", leftOut,
		"asserts the store to TransactionStore, whose Transaction returns *TransactionError; informerlab's Store.Transaction returns error, and the *indexer.TransactionError is reached with errors.As (docs/mapping.md)",
		"TestCacheTransactionShouldIndexErrors"),
	group(tc, "thread_safe_store_test.go", private,
		"builds the private threadSafeMap and reads its index sets",
		"TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex", "TestThreadSafeStoreAddKeepsNonEmptySetPostDeleteFromIndex",
		"TestThreadSafeStoreIndexingFunctionsWithMultipleValues", "TestThreadSafeStoreRV"),

	// wait_test.go
	group(tc, "wait_test.go", leftOut,
		"needs SyncResult, what a typed SharedInformerFactory's WaitForCacheSyncWithContext returns, keyed by reflect.Type; informerlab's factory is keyed by GroupVersionResource and its WaitForCacheSync returns map[GroupVersionResource]bool (docs/mapping.md)",
		"TestSyncResult"),

	// reflector_test.go
	group(tc, "reflector_test.go", private,
		"builds a Reflector literal with its private fields, calls its private watch, list, handleWatch or setLastSyncResourceVersion, or reads its private listerWatcher, resyncChan, expectedType or expectedGVK",
		"TestCloseWatchChannelOnError", "TestRunUntil", "TestReflectorResyncChan", "TestReflectorWatchStoppedBefore",
		"TestReflectorWatchStoppedAfter", "TestReflectorHandleWatchStoppedBefore", "TestReflectorHandleWatchStoppedAfter",
		"TestReflectorHandleWatchResultChanClosedBefore", "TestReflectorHandleWatchResultChanClosedAfter",
		"TestReflectorWatchHandler", "TestReflectorStopWatch", "TestReflectorListAndWatchInitConnBackoff",
		"TestBackoffOnTooManyRequests", "TestNoRelistOnTooManyRequests", "TestRetryInternalError",
		"TestReflectorWatchListPageSize", "TestReflectorNotPaginatingNotConsistentReads", "TestReflectorListExtract",
		"TestReflectorRespectStoreTransformer"),
	group(tc, "reflector_test.go", private,
		"calls the private helpers getTypeDescriptionFromObject, getExpectedGVKFromObject or isUnsupportedTableObject",
		"TestGetTypeDescriptionFromObject", "TestGetExpectedGVKFromObject", "TestIsUnsupportedTableObject"),
	group(tc, "reflector_watchlist_test.go", private,
		"reads the Reflector's private useWatchList, expectedType or expectedGVK, or calls the private handleListWatch or newInitialEventsEndBookmarkTickerInternal",
		"TestNewReflectorWithDisablementWatchList", "TestInitialEventsEndBookmarkTicker", "TestWatchListResourceVersion"),

	// Whole files about parts informerlab does not have, or private ones.
	wholeFile(tc, "retry_with_deadline_test.go", private,
		"tests the unexported retryWithDeadline through NewRetryWithDeadline on a fake clock; informerlab's reflector/internal_error_test.go checks the same window rule"),
	wholeFile(tc, "reflector_data_consistency_detector_test.go", private,
		"builds the queue with the private newQueueFIFO and checks the data consistency detector, which informerlab does not have"),
	wholeFile(tc, "event_handler_name_test.go", private,
		"calls the private nameForHandler"),
	wholeFile(tc, "listwatch_test.go", private,
		"reads the private unSupportedWatchListSemantics of ToListWatcherWithWatchListSemantics"),
	wholeFile(tc, "mutation_detector_test.go", private,
		"builds the private defaultCacheMutationDetector and reads its private fields; informerlab's informer/mutation_detector_test.go checks its detector"),

	// Run, with one retry alone: bounds on real elapsed time.
	group(tc, "reflector_test.go", wallClock,
		"runs a Reflector with a custom backoff against a failing ListerWatcher and checks the real time of each retry within a few milliseconds; on a loaded machine a retry can come 4 ms late",
		"TestNewReflectorWithCustomBackoff"),

	// Expected failures: deliberate differences, each explained in the docs.
	group(tc, "delta_fifo_test.go", differs,
		"a bare DeltaFIFO relist queues Replaced where client-go's default (EmitDeltaTypeReplaced false) queues Sync; informerlab always emits Replaced, as every client-go informer asks (docs/deltafifo.md, \"Relists always emit Replaced\")",
		"TestDeltaFIFO_replaceWithDeleteDeltaIn", "TestDeltaFIFO_ReplaceMakesDeletions", "TestDeltaFIFO_HasSyncedCorrectOnDeletion"),
	group(tc, "reflector_test.go", differs,
		"a MinWatchTimeout under five minutes is honoured, not raised to client-go's minimum (docs/reflector.md, differences)",
		"TestWatchTimeout"),
	group(tc, "reflector_test.go", differs,
		"the store has no optional UpdateResourceVersion interface (docs/reflector.md, differences)",
		"TestReflectorResourceVersionUpdate"),
	group(tc, "wait_test.go", differs,
		"WaitFor logs through log/slog's default logger, not the klog logger in the context; the test compares klog's text output down to the caller's line number (docs/mapping.md, \"The expected failures\")",
		"TestWaitFor"),
	group(tc, "reflector_watchlist_test.go", differs,
		"a streaming list cut before its end bookmark falls back to a list, where client-go opens a second streaming list (docs/reflector.md, differences)",
		"TestWatchList"),
)

// group makes the entries of one file that share a kind and a reason.
func group(suite, file string, k kind, reason string, names ...string) []entry {
	out := make([]entry, len(names))
	for i, n := range names {
		out[i] = entry{Suite: suite, File: file, Name: n, Kind: k, Reason: reason}
	}
	return out
}

// wholeFile takes out every test and helper of a file.
func wholeFile(suite, file string, k kind, reason string) []entry {
	return []entry{{Suite: suite, File: file, Kind: k, Reason: reason}}
}

func groups(gs ...[]entry) expectations {
	var out expectations
	for _, g := range gs {
		out = append(out, g...)
	}
	return out
}
