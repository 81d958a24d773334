package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// link is a link target found in a document.
type link struct {
	line   int
	target string
}

var (
	inlineLink    = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	referenceLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	inlineCode    = regexp.MustCompile("`+[^`]*`+")
	hasScheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// relativeLinks returns the targets of the links of a markdown document
// that point into the repository or into the document itself (#anchor), not
// those with a scheme (https:, mailto:). Code blocks and code spans are
// skipped.
func relativeLinks(markdown string) []link {
	var links []link
	fence := ""
	for i, line := range strings.Split(markdown, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			continue // an indented code block (or a continuation line; links there are rare)
		}
		line = inlineCode.ReplaceAllString(line, "")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := referenceLink.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if hasScheme.MatchString(target) {
				continue
			}
			links = append(links, link{line: i + 1, target: target})
		}
	}
	return links
}

// checkLink returns an error unless target, a link in the document at doc
// (relative to root), leads to an existing file or directory, and unless its
// #fragment, if it has one and leads to a markdown file (or is a pure
// #anchor into doc itself), names a heading of that file. A target starting
// with "/" is relative to root.
func checkLink(root, doc, target string) error {
	path, fragment, _ := strings.Cut(target, "#")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	var full string
	switch {
	case path == "" && fragment == "":
		return fmt.Errorf("%s: empty link", target)
	case path == "":
		full = filepath.Join(root, doc)
	case strings.HasPrefix(path, "/"):
		full = filepath.Join(root, filepath.FromSlash(path))
	default:
		full = filepath.Join(root, filepath.Dir(doc), filepath.FromSlash(path))
	}
	if rel, err := filepath.Rel(root, full); err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%s: leads outside the repository", target)
	}
	if _, err := os.Stat(full); err != nil {
		return fmt.Errorf("%s: %s does not exist", target, filepath.ToSlash(full[len(root):]))
	}
	if fragment == "" || !strings.HasSuffix(full, ".md") {
		return nil
	}
	text, err := os.ReadFile(full)
	if err != nil {
		return err
	}
	if !headingAnchors(string(text))[fragment] {
		return fmt.Errorf("%s: %s has no heading with the anchor #%s", target, filepath.ToSlash(full[len(root):]), fragment)
	}
	return nil
}

var (
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	linkInText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// headingAnchors returns the anchors GitHub gives the headings of a markdown
// document: the heading's text (links reduced to their text), lower case,
// with every character that is not a letter, digit, space, hyphen or
// underscore dropped and spaces turned into hyphens; a repeated anchor gets
// -1, -2, ... appended.
func headingAnchors(markdown string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(markdown, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text := linkInText.ReplaceAllString(m[1], "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		anchor := b.String()
		if n := seen[anchor]; n > 0 {
			seen[anchor]++
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			seen[anchor] = 1
		}
		anchors[anchor] = true
	}
	return anchors
}

// TestDocsRelativeLinksResolve checks every relative link in README.md and
// docs/*.md.
// Diagram: all steps. client-go: none (the docs' links).
func TestDocsRelativeLinksResolve(t *testing.T) {
	root := repoRoot(t)
	total := 0

	for _, doc := range docFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		for _, l := range relativeLinks(string(text)) {
			total++
			if err := checkLink(root, doc, l.target); err != nil {
				t.Errorf("%s:%d: %v", doc, l.line, err)
			}
		}
	}
	t.Logf("%d links checked", total)
	assert.Greater(t, total, 10, "the docs have fewer links than expected: is the parser broken?")
}

// TestLinkCheckerRejectsMissingTargets runs the link finder and checker on a
// small tree.
// Diagram: none. client-go: none.
func TestLinkCheckerRejectsMissingTargets(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "informer"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("# Title\n\n## 2. The `Section` (one)\n\n```\n## not a heading\n```\n## FAQ\n## FAQ\n"), 0o644))
	doc := "See [a](a.md#section), [the code](../informer), [abs](/docs/a.md \"title\") and ![img](b.png).\n" +
		"Not links: [`x`](https://example.com), `[c](missing.md)`, [mail](mailto:x@y.z); an anchor: [top](#top).\n" +
		"```go\n[d](missing-in-code.md)\n```\n" +
		"    [e](indented.md)\n" +
		"[ref]: ../README.md\n" +
		"| table | [f](../informer/doc.go) |\n"

	links := relativeLinks(doc)

	assert.Equal(t, []link{{1, "a.md#section"}, {1, "../informer"}, {1, "/docs/a.md"}, {1, "b.png"}, {2, "#top"}, {7, "../README.md"}, {8, "../informer/doc.go"}}, links)
	for _, good := range []string{"a.md#title", "a.md#2-the-section-one", "a.md#faq", "a.md#faq-1", "#faq"} {
		assert.NoError(t, checkLink(root, "docs/a.md", good), good)
	}
	for _, bad := range []string{"a.md#section", "a.md#not-a-heading", "a.md#faq-2", "#top", "#"} {
		assert.Error(t, checkLink(root, "docs/a.md", bad), bad)
	}
	assert.NoError(t, checkLink(root, "docs/x.md", "../informer"))
	assert.NoError(t, checkLink(root, "docs/x.md", "/docs/a.md"))
	assert.NoError(t, checkLink(root, "README.md", "docs/a.md"))
	assert.Error(t, checkLink(root, "docs/x.md", "b.png"))
	assert.Error(t, checkLink(root, "docs/x.md", "../README.md"))
	assert.Error(t, checkLink(root, "docs/x.md", "../informer/doc.go"))
	assert.Error(t, checkLink(root, "docs/x.md", "../../outside.md"))
	assert.Error(t, checkLink(root, "README.md", "docs/a.md/"+"x"))
}
