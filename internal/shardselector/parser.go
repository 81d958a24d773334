package shardselector

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/sharding"
)

// exprKind numbers the kinds of expression as CEL's AST does; the real
// server's messages print the number ("got expression kind 3").
type exprKind int

const (
	kindCall    exprKind = 1
	kindIdent   exprKind = 3
	kindList    exprKind = 4
	kindLiteral exprKind = 5
	kindSelect  exprKind = 7
)

// node is one expression of the tree: a call (fn, args), an identifier
// (name), a field selection (operand.name) or a literal.
type node struct {
	kind    exprKind
	fn      string // call: the function, CEL's operator names for operators ("_||_")
	args    []*node
	name    string // ident, select: the name
	operand *node  // select
	lit     literal
}

// Limits. Every parse is linear in the input and the input is bounded, so
// that no request makes the server work harder than a page of text would.
const (
	// maxDepth bounds nesting, so that no input exhausts the stack.
	maxDepth = 100
	// maxCodePoints is the longest expression, in characters, as in CEL
	// (cel-go's expressionSizeCodePointLimit default).
	maxCodePoints = 100_000
	// maxChain is the most selections, indexes and receiver calls one
	// operand may carry (object.a.b[0].c()), as in CEL (cel-go's parser
	// recursion limit, 250): a field path is never near it.
	maxChain = 250
)

// parser is a recursive-descent parser over CEL's expression grammar, with its
// precedence: ?: < || < && < relations < + - < * / % < unary < member.
type parser struct {
	toks  []token
	i     int
	depth int
}

// Parse reads a shard selector. An empty (or blank) expression is an error,
// as on the real server: a request without one omits the parameter.
func Parse(expr string) (sharding.Selector, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, errors.New("empty shard selector is not allowed; omit the parameter for unfiltered lists")
	}
	if n := utf8.RuneCountInString(expr); n > maxCodePoints {
		return nil, fmt.Errorf("CEL parse error: expression code point size exceeds limit: size: %d, limit %d", n, maxCodePoints)
	}
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	root, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, syntaxError(fmt.Sprintf("extraneous input '%s'", t.text))
	}
	reqs, err := walk(root)
	if err != nil {
		return nil, err
	}
	for _, r := range reqs[1:] {
		if r.Key != reqs[0].Key {
			return nil, fmt.Errorf("all shard ranges must use the same field, got %q and %q", reqs[0].Key, r.Key)
		}
	}
	return sharding.NewSelector(reqs...), nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// accept consumes the punctuation op if it comes next.
func (p *parser) accept(op string) bool {
	if t := p.peek(); t.kind == tokPunct && t.text == op {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(op string) error {
	if p.accept(op) {
		return nil
	}
	t := p.peek()
	if t.kind == tokEOF {
		return syntaxError(fmt.Sprintf("missing '%s' at '<EOF>'", op))
	}
	return syntaxError(fmt.Sprintf("mismatched input '%s' expecting '%s'", t.text, op))
}

func (p *parser) expr() (*node, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, syntaxError("expression nested too deeply")
	}
	defer func() { p.depth-- }()
	cond, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if !p.accept("?") {
		return cond, nil
	}
	a, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	b, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &node{kind: kindCall, fn: "_?_:_", args: []*node{cond, a, b}}, nil
}

// levels are the binary operators, loosest first.
var levels = [][]string{{"||"}, {"&&"}, {"==", "!=", "<", "<=", ">", ">="}, {"+", "-"}, {"*", "/", "%"}}

func (p *parser) binary(level int) (*node, error) {
	if level == len(levels) {
		return p.unary()
	}
	left, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		op := ""
		for _, o := range levels[level] {
			if p.accept(o) {
				op = o
				break
			}
		}
		if op == "" {
			return left, nil
		}
		right, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		left = &node{kind: kindCall, fn: "_" + op + "_", args: []*node{left, right}}
	}
}

func (p *parser) unary() (*node, error) {
	for _, op := range []string{"!", "-"} {
		if p.accept(op) {
			if p.depth++; p.depth > maxDepth {
				return nil, syntaxError("expression nested too deeply")
			}
			defer func() { p.depth-- }()
			operand, err := p.unary()
			if err != nil {
				return nil, err
			}
			return &node{kind: kindCall, fn: op + "_", args: []*node{operand}}, nil
		}
	}
	return p.member()
}

func (p *parser) member() (*node, error) {
	n, err := p.primary()
	if err != nil {
		return nil, err
	}
	for links := 0; ; links++ {
		if links > maxChain {
			return nil, errors.New("CEL parse error: max recursion depth exceeded")
		}
		switch {
		case p.accept("."):
			t := p.next()
			if t.kind != tokIdent {
				return nil, syntaxError(fmt.Sprintf("no viable alternative at input '.%s'", t.text))
			}
			if p.peek().kind == tokPunct && p.peek().text == "(" {
				// A receiver call, x.f(args): CEL keeps the receiver apart from
				// the arguments, and the server's walk looks at the arguments.
				args, err := p.args()
				if err != nil {
					return nil, err
				}
				n = &node{kind: kindCall, fn: t.text, args: args}
				continue
			}
			n = &node{kind: kindSelect, name: t.text, operand: n}
		case p.accept("["):
			idx, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			n = &node{kind: kindCall, fn: "_[_]", args: []*node{n, idx}}
		default:
			return n, nil
		}
	}
}

func (p *parser) primary() (*node, error) {
	t := p.next()
	switch {
	case t.kind == tokIdent:
		if p.peek().kind == tokPunct && p.peek().text == "(" {
			args, err := p.args()
			if err != nil {
				return nil, err
			}
			return &node{kind: kindCall, fn: t.text, args: args}, nil
		}
		return &node{kind: kindIdent, name: t.text}, nil
	case t.kind == tokString || t.kind == tokNumber:
		return &node{kind: kindLiteral, lit: t.lit}, nil
	case t.kind == tokPunct && t.text == "(":
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return n, nil
	case t.kind == tokPunct && t.text == "[":
		var elems []*node
		for !p.accept("]") {
			if len(elems) > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
		}
		return &node{kind: kindList, args: elems}, nil
	case t.kind == tokEOF:
		return nil, syntaxError("mismatched input '<EOF>' expecting an expression")
	default:
		return nil, syntaxError(fmt.Sprintf("mismatched input '%s' expecting an expression", t.text))
	}
}

// args reads "(a, b, ...)".
func (p *parser) args() ([]*node, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var args []*node
	for !p.accept(")") {
		if p.peek().kind == tokEOF {
			return nil, syntaxError("missing ')' at '<EOF>'")
		}
		if len(args) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return args, nil
}

// walk turns the tree into ranges: the root must be a shardRange call or
// calls joined by ||, in the order they are written.
func walk(n *node) ([]sharding.ShardRangeRequirement, error) {
	if n.kind != kindCall {
		return nil, fmt.Errorf("unexpected expression kind %v; expected shardRange() call or || operator", int(n.kind))
	}
	switch n.fn {
	case "_||_":
		left, err := walk(n.args[0])
		if err != nil {
			return nil, err
		}
		right, err := walk(n.args[1])
		if err != nil {
			return nil, err
		}
		return append(left, right...), nil
	case "shardRange":
		r, err := shardRange(n.args)
		if err != nil {
			return nil, err
		}
		return []sharding.ShardRangeRequirement{r}, nil
	}
	return nil, fmt.Errorf("unsupported function %q; only shardRange() and || are allowed", n.fn)
}

// shardRange checks the three arguments of shardRange(field, start, end).
func shardRange(args []*node) (sharding.ShardRangeRequirement, error) {
	if len(args) != 3 {
		return sharding.ShardRangeRequirement{}, fmt.Errorf("shardRange() requires exactly 3 arguments, got %d", len(args))
	}
	field, err := fieldPath(args[0])
	if err != nil {
		return sharding.ShardRangeRequirement{}, fmt.Errorf("shardRange() first argument: %w", err)
	}
	if field != "object.metadata.uid" && field != "object.metadata.namespace" {
		return sharding.ShardRangeRequirement{}, fmt.Errorf("unsupported field path %q; supported: object.metadata.uid, object.metadata.namespace", field)
	}
	start, err := hexBound(args[1], "hexStart")
	if err != nil {
		return sharding.ShardRangeRequirement{}, err
	}
	end, err := hexBound(args[2], "hexEnd")
	if err != nil {
		return sharding.ShardRangeRequirement{}, err
	}
	if !sharding.HexLess(start, end) {
		return sharding.ShardRangeRequirement{}, fmt.Errorf("shard range start %s must be less than end %s", start, end)
	}
	return sharding.ShardRangeRequirement{Key: field, Start: start, End: end}, nil
}

// fieldPath reads a chain of names, object.metadata.uid, from the last name
// back to the first: one pass, one string.
func fieldPath(n *node) (string, error) {
	var names []string
	for n.kind == kindSelect {
		names = append(names, n.name)
		n = n.operand
	}
	if n.kind != kindIdent {
		return "", fmt.Errorf("expected field path (e.g. object.metadata.uid), got expression kind %v", int(n.kind))
	}
	names = append(names, n.name)
	slices.Reverse(names)
	return strings.Join(names, "."), nil
}

// hexBound checks one bound: a string literal, 0x and exactly 16 lower-case
// hex digits, or 0x10000000000000000.
func hexBound(n *node, name string) (string, error) {
	if n.kind != kindLiteral {
		return "", fmt.Errorf("%s must be a string literal (e.g. '0xff'), got expression kind %v", name, int(n.kind))
	}
	if n.lit.goType != "string" {
		return "", fmt.Errorf("%s must be a string literal, got %s", name, n.lit.goType)
	}
	s := n.lit.str
	hex, ok := strings.CutPrefix(s, "0x")
	switch {
	case !ok:
		return "", fmt.Errorf("%s must have '0x' prefix, got %q", name, s)
	case hex == "":
		return "", fmt.Errorf("%s: hex value is required after '0x'", name)
	case len(hex) > 17:
		return "", fmt.Errorf("%s: hex value too long (%d chars, max 17): %q", name, len(hex), hex)
	}
	for _, c := range hex {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", fmt.Errorf("%s: invalid hex character %q in %q", name, string(c), s)
		}
	}
	switch {
	case len(hex) == 17 && s != "0x10000000000000000":
		return "", fmt.Errorf("%s: 17-digit hex value must be '0x10000000000000000' (2^64), got %q", name, s)
	case len(hex) < 16:
		return "", fmt.Errorf("%s must be a 0x-prefixed 16-digit hex value, got %q (did you mean %q?)", name, s, "0x"+strings.Repeat("0", 16-len(hex))+hex)
	}
	return s, nil
}
