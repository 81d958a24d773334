package shardselector

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokenKind is what a token is.
type tokenKind int

const (
	tokEOF tokenKind = iota
	tokIdent
	tokString // also bytes and raw strings: lit holds the value
	tokNumber // lit holds the Go type CEL gives it: int64, uint64, float64
	tokPunct  // text holds the operator or punctuation
)

// token is one lexeme. pos is its byte offset, for error messages.
type token struct {
	kind tokenKind
	text string // the source text (the operator, the identifier)
	lit  literal
	pos  int
}

// literal is a constant: its Go type (as %T prints the value cel-go would
// hold) and, for strings, the value.
type literal struct {
	goType string
	str    string
}

// lex splits src into tokens, the last one tokEOF.
func lex(src string) ([]token, error) {
	var out []token
	i := 0
	for {
		for i < len(src) && strings.ContainsRune(" \t\r\n\f", rune(src[i])) {
			i++
		}
		if strings.HasPrefix(src[i:], "//") { // a comment runs to the end of the line
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		}
		if i == len(src) {
			return append(out, token{kind: tokEOF, text: "<EOF>", pos: i}), nil
		}
		c := src[i]
		start := i
		switch {
		case c == '\'' || c == '"' ||
			((c == 'r' || c == 'R' || c == 'b' || c == 'B') && i+1 < len(src) && (src[i+1] == '\'' || src[i+1] == '"')):
			t, n, err := lexString(src, i)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
			i += n
		case isIdentStart(c):
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			word := src[start:i]
			switch word {
			case "true", "false":
				out = append(out, token{kind: tokNumber, text: word, lit: literal{goType: "bool"}, pos: start})
			case "null":
				out = append(out, token{kind: tokNumber, text: word, lit: literal{goType: "structpb.NullValue"}, pos: start})
			default:
				out = append(out, token{kind: tokIdent, text: word, pos: start})
			}
		case c >= '0' && c <= '9':
			t, n := lexNumber(src, i)
			out = append(out, t)
			i += n
		default:
			op := ""
			for _, p := range []string{"||", "&&", "==", "!=", "<=", ">=", "(", ")", ",", ".", "!", "<", ">", "-", "+", "*", "/", "%", "?", ":", "[", "]", "{", "}"} {
				if strings.HasPrefix(src[i:], p) {
					op = p
					break
				}
			}
			if op == "" {
				r, _ := utf8.DecodeRuneInString(src[i:])
				return nil, syntaxError(fmt.Sprintf("token recognition error at: '%c'", r))
			}
			out = append(out, token{kind: tokPunct, text: op, pos: start})
			i += len(op)
		}
	}
}

func isIdentStart(c byte) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isIdentPart(c byte) bool  { return isIdentStart(c) || (c >= '0' && c <= '9') }

// lexNumber reads an int (0x hex or decimal), a uint (u suffix) or a double.
func lexNumber(src string, i int) (token, int) {
	start := i
	goType := "int64"
	if strings.HasPrefix(src[i:], "0x") || strings.HasPrefix(src[i:], "0X") {
		i += 2
		for i < len(src) && strings.ContainsRune("0123456789abcdefABCDEF", rune(src[i])) {
			i++
		}
	} else {
		for i < len(src) && (src[i] >= '0' && src[i] <= '9') {
			i++
		}
		if i+1 < len(src) && src[i] == '.' && src[i+1] >= '0' && src[i+1] <= '9' {
			goType = "float64"
			i++
			for i < len(src) && (src[i] >= '0' && src[i] <= '9') {
				i++
			}
		}
		if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
			goType = "float64"
			i++
			if i < len(src) && (src[i] == '+' || src[i] == '-') {
				i++
			}
			for i < len(src) && (src[i] >= '0' && src[i] <= '9') {
				i++
			}
		}
	}
	if goType == "int64" && i < len(src) && (src[i] == 'u' || src[i] == 'U') {
		goType = "uint64"
		i++
	}
	return token{kind: tokNumber, text: src[start:i], lit: literal{goType: goType}, pos: start}, i - start
}

// lexString reads a quoted literal at src[i:], with an optional r (raw) or b
// (bytes) prefix, and returns it and its length in bytes.
func lexString(src string, i int) (token, int, error) {
	start := i
	raw, bytes := false, false
	switch src[i] {
	case 'r', 'R':
		raw = true
		i++
	case 'b', 'B':
		bytes = true
		i++
	}
	quote := src[i]
	i++
	var b strings.Builder
	for {
		if i >= len(src) || src[i] == '\n' {
			return token{}, 0, syntaxError("token recognition error at: '" + src[start:] + "'")
		}
		c := src[i]
		if c == quote {
			i++
			break
		}
		if c != '\\' || raw {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(src) {
			return token{}, 0, syntaxError("token recognition error at: '" + src[start:] + "'")
		}
		e := src[i+1]
		i += 2
		switch e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '`', '?':
			b.WriteByte(e)
		case 'x', 'X', 'u', 'U':
			n := map[byte]int{'x': 2, 'X': 2, 'u': 4, 'U': 8}[e]
			if i+n > len(src) {
				return token{}, 0, syntaxError("token recognition error at: '" + src[start:] + "'")
			}
			v, err := strconv.ParseUint(src[i:i+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return token{}, 0, syntaxError("token recognition error at: '" + src[start:] + "'")
			}
			b.WriteRune(rune(v))
			i += n
		default:
			return token{}, 0, syntaxError("token recognition error at: '" + src[start:] + "'")
		}
	}
	t := token{kind: tokString, text: src[start:i], lit: literal{goType: "string", str: b.String()}, pos: start}
	if bytes {
		t.lit.goType = "[]uint8"
	}
	return t, i - start, nil
}

// syntaxError is a parse error in the real server's framing; the words after
// "Syntax error: " are this parser's own.
func syntaxError(msg string) error {
	return fmt.Errorf("CEL parse error: Syntax error: %s", msg)
}
