// Package shardselector reads the shard selectors of list and watch requests
// (metav1.ListOptions.ShardSelector) into apimachinery's [sharding.Selector],
// with the real API server's grammar and in its words.
//
// A shard selector names one or more hash ranges, OR-ed together:
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') ||
//	    shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')
//
// An object is in the selection when the 64-bit FNV-1a hash of its uid (or of
// its namespace) falls in one of the ranges, each [start, end). Bounds are
// 0x-prefixed lower-case hex of exactly 16 digits; the one 17-digit bound is
// 0x10000000000000000 (2^64), the exclusive end of the hash space. Every range
// of one selector hashes the same field.
//
// # How it works
//
// kube-apiserver parses the expression as CEL and then walks the tree,
// accepting only shardRange calls joined by ||. This package reads the same
// small language with a hand-written lexer and recursive-descent parser (no
// CEL dependency): parentheses, single- or double-quoted strings, comments and
// CEL's operator precedence all behave as they do there, so an expression
// the real server accepts is accepted here with the same ranges, and one it
// refuses is refused — with the same message, except for syntax errors,
// whose wording is this parser's own. [sharding.Selector.Matches] (apimachinery)
// then does the hashing. e2e/controlplane/shardselectortest checks the two
// parsers against each other.
//
// # Guarantees
//
//   - Parse never panics, on any input; every result it returns is valid for
//     [sharding.Selector.Matches], and its String is the canonical wire form
//     the real server echoes in a list's metadata.shardInfo.
//   - Parse is a pure function, safe for concurrent use.
//   - Parse's work is linear in the expression, and bounded: as in CEL, an
//     expression of more than 100,000 characters is refused before it is
//     read, and so is an operand with more than 250 selections or indexes
//     (object.m.m.m...), each in cel-go's words. A selector comes in a GET
//     that any web page may send, so it must cost the server little.
//
// # Differences from kube-apiserver
//
// k8s.io/apiserver/pkg/sharding.Parse uses cel-go's parser; this package
// keeps the main module free of cel-go and its protobuf dependencies. Error
// messages are the server's, but without its "invalid shard selector: "
// prefix, which the caller adds (fakeapi) or replaces (reflector).
//
// # Read next
//
// fakeapi, which filters lists and watches with it, and reflector, whose
// sharded Reflector sends the expression and re-checks what comes back.
package shardselector
