package sharding

import (
	"math/bits"
	"slices"
	"strconv"
)

// BucketOwners returns, for each of the buckets, the member that should own
// it, by rendezvous (highest-random-weight) hashing with bounded loads:
// every pair (member, bucket) has a score hash(member, bucket); going
// through all pairs from the highest score down, a bucket goes to the
// pair's member if the bucket has no owner yet and the member has room.
// With B buckets and N members a member has room for ⌊B/N⌋ buckets, and
// one more while fewer than B mod N members hold that many: so every
// member holds ⌊B/N⌋ or ⌈B/N⌉, never more than its fair share. Ties go to
// the smaller name.
//
// Every member that sees the same members computes the same answer, with
// no coordination. A member joining or leaving moves a few more buckets
// than the minimum an even split needs (a member's best buckets may go to
// others that filled up first, and a change of N moves the cut), where
// plain rendezvous hashing moves only the newcomer's or the leaver's, but
// leaves the split as uneven as a random draw (docs/sharding.md, "The
// rendezvous ring", has both measured). With no members every owner is "".
//
// The ring only says who should own a bucket. Who may act on it is decided
// by the bucket's Lease (see [Member]), so members that briefly
// disagree about who is alive cannot both act.
func BucketOwners(members []string, buckets int) []string {
	owners := make([]string, max(buckets, 0))
	members = slices.Clone(members)
	slices.Sort(members)
	members = slices.Compact(members)
	n := len(members)
	if n == 0 || buckets <= 0 {
		return owners
	}
	// Each pair is one uint64: the score's high bits, and in the low bits
	// the pair's index (member·B + bucket) counted down, so that sorting
	// plain integers ranks the pairs by score, and a tie of the kept bits
	// goes to the smaller name, then the smaller bucket.
	last := uint64(n*buckets - 1)
	shift := uint(bits.Len64(last))
	pairs := make([]uint64, 0, n*buckets)
	for m, name := range members {
		for b := range buckets {
			i := uint64(m*buckets + b)
			pairs = append(pairs, rendezvousScore(name, b)>>shift<<shift|(last-i))
		}
	}
	slices.Sort(pairs)
	floor, extra := buckets/n, buckets%n // extra members may hold floor+1
	load := make([]int, n)
	full, left := 0, buckets // full: members holding floor+1
	for k := len(pairs) - 1; k >= 0 && left > 0; k-- {
		i := int(last - pairs[k]&(1<<shift-1))
		m, b := i/buckets, i%buckets
		if owners[b] != "" {
			continue
		}
		switch l := load[m]; {
		case l < floor:
		case l == floor && full < extra:
			full++
		default:
			continue
		}
		load[m]++
		owners[b] = members[m]
		left--
	}
	return owners
}

// rendezvousScore hashes a member with a bucket: FNV-1a of "member/bucket"
// (the bucket in decimal), then a 64-bit finalizer (splitmix64's), because
// FNV's last bytes barely reach its high bits and the scores of one member
// would rank alike. FNV-1a is written out, to allocate nothing: a map of
// B buckets and N members scores B·N pairs every RetryPeriod.
func rendezvousScore(member string, bucket int) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	x := uint64(offset)
	for i := range len(member) {
		x = (x ^ uint64(member[i])) * prime
	}
	x = (x ^ '/') * prime
	var digits [20]byte
	for _, d := range strconv.AppendInt(digits[:0], int64(bucket), 10) {
		x = (x ^ uint64(d)) * prime
	}
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// RunnerUpBuckets returns, sorted, the buckets member does not own in the
// ring of members but would own if any one other member left it: the
// buckets a member keeps in its cache with Options.Warm, so that it can take
// over after a crash without listing them. That is the crashed member's
// buckets the member would gain, and also those the bounded loads move to it
// from another survivor. A member not in members gets none.
func RunnerUpBuckets(members []string, member string, buckets int) []int {
	members = slices.Clone(members)
	slices.Sort(members)
	members = slices.Compact(members)
	if !slices.Contains(members, member) {
		return nil
	}
	owners := BucketOwners(members, buckets)
	var up []int
	for _, gone := range members {
		if gone == member {
			continue
		}
		rest := slices.DeleteFunc(slices.Clone(members), func(m string) bool { return m == gone })
		for b, owner := range BucketOwners(rest, buckets) {
			if owner == member && owners[b] != member {
				up = append(up, b)
			}
		}
	}
	slices.Sort(up)
	return slices.Compact(up)
}
