package demoengine

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShardedDemoNarratesTheSurvivorsTakingAKilledReplicasBuckets: with
// three replicas the narration shows the settled ring (every bucket held
// once, by one of the three), then, after replica-0 is killed, two holders
// sharing all sixteen buckets no sooner than a LeaseDuration later, and
// every Foo of replica-0's buckets reconciled by a survivor.
// Diagram: steps 1-9 in every replica, step 1 relisting after a takeover. client-go: none.
func TestShardedDemoNarratesTheSurvivorsTakingAKilledReplicasBuckets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		require.NoError(t, Run(context.Background(), Options{Shards: 3}, strings.NewReader(""), &out))
		text := out.String()
		t.Log("\n" + text)

		settled, after, ok := strings.Cut(text, "== Chapter 2: a replica dies ==")
		require.True(t, ok, "the narration reaches the kill")
		_, takeover, ok := strings.Cut(after, "== Chapter 3: the survivors take over ==")
		require.True(t, ok, "the narration reaches the takeover")

		holds := regexp.MustCompile(`(replica-\d) holds +(\d+) buckets \[([\d ]*)\]`)
		owners := func(part string) map[string]int {
			got := map[string]int{}
			seen := map[string]bool{}
			total := 0
			for _, m := range holds.FindAllStringSubmatch(part, -1) {
				for _, b := range strings.Fields(m[3]) {
					assert.False(t, seen[b], "bucket %s held twice", b)
					seen[b] = true
				}
				n, err := strconv.Atoi(m[2])
				require.NoError(t, err)
				got[m[1]] = n
				total += n
			}
			assert.Equal(t, 16, total, "every bucket is held")
			return got
		}
		before := owners(settled)
		assert.Len(t, before, 3, "three holders before the kill")
		for r, n := range before {
			assert.Positive(t, n, "%s holds buckets", r)
		}
		later := owners(takeover)
		assert.Len(t, later, 2, "two holders after the kill")
		assert.NotContains(t, later, "replica-0", "the killed replica holds nothing")

		took := regexp.MustCompile(`after (\d+\.\d)s every bucket has a live holder again`).FindStringSubmatch(takeover)
		require.NotNil(t, took, "the narration times the takeover")
		secs, err := strconv.ParseFloat(took[1], 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, secs, shardLeaseDuration.Seconds(), "no survivor takes a bucket before its Lease expires")
		assert.Less(t, secs, (shardLeaseDuration + shardRenewDeadline + 5*time.Second).Seconds())

		orphans := regexp.MustCompile(`its Foos (.*) have no replica now`).FindStringSubmatch(after)
		require.NotNil(t, orphans)
		keys := strings.Split(orphans[1], ", ")
		require.NotEmpty(t, keys[0], "replica-0 had Foos")
		for _, key := range keys {
			m := regexp.MustCompile(regexp.QuoteMeta(key) + ` \(bucket \d+, was replica-0's\) reconciled by (.*)`).FindStringSubmatch(takeover)
			if assert.NotNil(t, m, "%s is reconciled after the kill", key) {
				assert.NotContains(t, m[1], "replica-0", "%s reconciled by a survivor", key)
			}
		}
	})
}

// TestShardedDemoWantsTwoReplicasAndTheEmbeddedServer: one replica is no
// ring, and the sharded mode has no remote or page variant.
// Diagram: none (the demo's flags). client-go: none.
func TestShardedDemoWantsTwoReplicasAndTheEmbeddedServer(t *testing.T) {
	err := Run(context.Background(), Options{Shards: 1}, strings.NewReader(""), &bytes.Buffer{})
	assert.ErrorContains(t, err, "at least 2 replicas")
	err = Run(context.Background(), Options{Shards: 3, Server: "http://127.0.0.1:1"}, strings.NewReader(""), &bytes.Buffer{})
	assert.ErrorContains(t, err, "embedded server only")
}
