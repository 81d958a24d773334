package sharding

import (
	"hash/fnv"
	"strconv"
)

// BucketOwners returns, for each of the buckets, the member that should own
// it: the one with the highest score hash(member, bucket) (rendezvous, or
// highest-random-weight, hashing; ties go to the smaller name). Every member
// that sees the same members computes the same answer, with no coordination.
// When one member joins, it wins about buckets/(N+1) buckets and only those
// move; when one leaves, only its buckets move, each to the runner-up. With
// no members every owner is "".
//
// The ring only says who should own a bucket. Who may act on it is decided
// by the bucket's Lease (see [Member]), so members that briefly
// disagree about who is alive cannot both act.
func BucketOwners(members []string, buckets int) []string {
	owners := make([]string, max(buckets, 0))
	for b := range owners {
		var best uint64
		for _, m := range members {
			s := rendezvousScore(m, b)
			if owners[b] == "" || s > best || (s == best && m < owners[b]) {
				owners[b], best = m, s
			}
		}
	}
	return owners
}

// rendezvousScore hashes a member with a bucket: FNV-1a of "member/bucket",
// then a 64-bit finalizer (splitmix64's), because FNV's last bytes barely
// reach its high bits and the scores of one member would rank alike.
func rendezvousScore(member string, bucket int) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(member))
	_, _ = h.Write([]byte{'/'})
	_, _ = h.Write([]byte(strconv.Itoa(bucket)))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
