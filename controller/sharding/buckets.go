package sharding

import (
	"fmt"
	"hash/fnv"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/internal/shardselector"
)

// DefaultBuckets is the number of buckets of a [Member] when
// Options.Buckets is 0. Keep it at least twice the largest number of
// replicas: a replica's share is a whole number of buckets, so with B
// buckets and N replicas the busiest holds ⌈B/N⌉ of them ([BucketOwners]
// never gives it more), which is 6 of 16 among 3 (37.5% rather than a
// third) and 3 of 16 among 6 (see docs/sharding.md, "The rendezvous ring").
const DefaultBuckets = 16

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

// BucketsOfShardSelector is the inverse of [ShardSelectorFor]: the buckets,
// sorted, whose uid hash ranges expr selects. "" (every object) is every
// bucket, and the no-bucket selector is none. Every range of expr must be a
// run of whole buckets of this count, on object.metadata.uid, as
// ShardSelectorFor writes them; anything else (another field, a range that
// splits a bucket, a selector of another bucket count) is an error, since
// no set of buckets means the same objects.
func BucketsOfShardSelector(expr string, buckets int) ([]int, error) {
	if buckets < 1 {
		return nil, fmt.Errorf("controller: shard selector: %d buckets (want at least 1)", buckets)
	}
	switch expr {
	case "":
		all := make([]int, buckets)
		for i := range all {
			all[i] = i
		}
		return all, nil
	case noBucketsSelector:
		return nil, nil
	}
	sel, err := shardselector.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("controller: shard selector: invalid %q: %w", expr, err)
	}
	var held []int
	for _, req := range sel.Requirements() {
		if req.Key != shardKey {
			return nil, fmt.Errorf("controller: shard selector: range on %q, want %s", req.Key, shardKey)
		}
		first, okStart := bucketAt(req.Start, buckets)
		end, okEnd := bucketAt(req.End, buckets)
		if !okStart || !okEnd {
			return nil, fmt.Errorf("controller: shard selector: range [%s, %s) is not a run of whole buckets of %d", req.Start, req.End, buckets)
		}
		for b := first; b < end; b++ {
			held = append(held, b)
		}
	}
	slices.Sort(held)
	return slices.Compact(held), nil
}

// bucketAt finds the bucket boundary bound (a range bound as the grammar
// writes it): i with bucketStart(i) == bound, 0 ≤ i ≤ buckets.
func bucketAt(bound string, buckets int) (int, bool) {
	for i := 0; i <= buckets; i++ {
		v, is2to64 := bucketStart(i, buckets)
		if hexBound(v, is2to64) == bound {
			return i, true
		}
	}
	return 0, false
}

// BucketLabelSelector returns the label selector of the objects labelled
// with one of the held buckets: "<label> in (3,4,9)". With no bucket it is
// "<label>,!<label>", a selector that matches no object (the label must
// exist and must not), since an empty "in ()" does not parse and ""
// would match every object.
func BucketLabelSelector(label string, held []int) string {
	set := slices.Clone(held)
	slices.Sort(set)
	set = slices.Compact(set)
	if len(set) == 0 {
		return label + ",!" + label
	}
	values := make([]string, len(set))
	for i, b := range set {
		values[i] = strconv.Itoa(b)
	}
	return label + " in (" + strings.Join(values, ",") + ")"
}
