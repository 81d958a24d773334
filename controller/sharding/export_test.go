package sharding

// IdentityFromHost exposes the default identity's rule to tests.
var IdentityFromHost = identityFromHost

// PlainOwners is rendezvous hashing without bounded loads, the ring's
// former map: each bucket to its highest-scoring member. Tests compare
// BucketOwners with it.
func PlainOwners(members []string, buckets int) []string {
	owners := make([]string, buckets)
	for b := range owners {
		var best uint64
		for _, m := range members {
			if s := rendezvousScore(m, b); owners[b] == "" || s > best || (s == best && m < owners[b]) {
				owners[b], best = m, s
			}
		}
	}
	return owners
}
