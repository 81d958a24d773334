package controller

import (
	"fmt"
	"hash/fnv"
	"math/bits"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// DefaultShardBuckets is the number of buckets of a [ShardMember] when
// ShardOptions.Buckets is 0. Keep it at least four times the largest number
// of replicas: a replica's share is a whole number of buckets, so with B
// buckets and N replicas the busiest holds at least ⌈B/N⌉ of them, and
// rendezvous hashing often gives it more (7 of 16 among 3 is typical; see
// docs/sharding.md, "The rendezvous ring").
const DefaultShardBuckets = 16

// shardKey is the field every bucket hashes: the uid, which never changes, so
// an object never moves between buckets on its own.
const shardKey = "object.metadata.uid"

// hashUID is the 64-bit FNV-1a hash of uid: the function kube-apiserver
// applies to a shardRange's field (apimachinery pkg/sharding HashField), so a
// bucket computed here and a range filtered there agree bit for bit.
func hashUID(uid types.UID) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(uid))
	return h.Sum64()
}

// BucketOf returns the bucket, 0 to buckets-1, of an object with this uid:
// bucket i holds the hashes h with i·2⁶⁴/buckets ≤ h < (i+1)·2⁶⁴/buckets,
// so i = ⌊h·buckets/2⁶⁴⌋, the high word of the 128-bit product. buckets
// must be positive.
func BucketOf(uid types.UID, buckets int) int {
	hi, _ := bits.Mul64(hashUID(uid), uint64(buckets))
	return int(hi)
}

// bucketStart is the smallest hash of bucket i: ⌈i·2⁶⁴/buckets⌉, the first
// whole number in the range (for i = buckets it is 2⁶⁴, which needs the
// second return value: true means 2⁶⁴).
func bucketStart(i, buckets int) (uint64, bool) {
	if i >= buckets {
		return 0, true
	}
	q, r := bits.Div64(uint64(i), 0, uint64(buckets))
	if r != 0 {
		q++
	}
	return q, false
}

// hexBound writes a range bound as the selector grammar wants it: 0x and 16
// lower-case hex digits, or 0x10000000000000000 for 2⁶⁴.
func hexBound(v uint64, is2to64 bool) string {
	if is2to64 {
		return "0x10000000000000000"
	}
	return fmt.Sprintf("0x%016x", v)
}

// noBucketsSelector is what [ShardSelectorFor] returns for an empty set. The
// grammar has no empty selector ("" means every object, and an empty range
// is refused), so it selects the one hash 0: in practice nothing, and the
// reconcile guard refuses such an object anyway, since no bucket is held.
const noBucketsSelector = "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001')"

// ShardSelectorFor returns the shard selector of a set of buckets: the OR of
// their uid hash ranges, adjacent buckets merged into one range, for example
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x2000000000000000') ||
//	    shardRange(object.metadata.uid, '0xe000000000000000', '0x10000000000000000')
//
// for buckets 0, 1 and 15 of 16. It is the expression a sharded informer
// sends as its shardSelector. Order and repeats in held do not matter; a
// bucket outside 0..buckets-1 is an error. An empty set gives a selector of
// the single hash 0, since "" would select everything.
func ShardSelectorFor(held []int, buckets int) (string, error) {
	if buckets < 1 {
		return "", fmt.Errorf("controller: shard selector: %d buckets (want at least 1)", buckets)
	}
	set := slices.Clone(held)
	slices.Sort(set)
	set = slices.Compact(set)
	for _, b := range set {
		if b < 0 || b >= buckets {
			return "", fmt.Errorf("controller: shard selector: bucket %d is not in 0..%d", b, buckets-1)
		}
	}
	if len(set) == 0 {
		return noBucketsSelector, nil
	}
	var ranges []string
	for i := 0; i < len(set); {
		j := i
		for j+1 < len(set) && set[j+1] == set[j]+1 {
			j++
		}
		start, _ := bucketStart(set[i], buckets)
		end, endIs2to64 := bucketStart(set[j]+1, buckets)
		ranges = append(ranges, fmt.Sprintf("shardRange(%s, '%s', '%s')", shardKey, hexBound(start, false), hexBound(end, endIs2to64)))
		i = j + 1
	}
	return strings.Join(ranges, " || "), nil
}
