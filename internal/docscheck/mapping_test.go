package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mappingHeader is the header every table of docs/mapping.md has.
var mappingHeader = []string{"informerlab", "upstream", "notes"}

// qualifiedName is pkg.Name or pkg.Type.Member, as written in the mapping.
var qualifiedName = regexp.MustCompile(`^([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?$`)

var codeSpan = regexp.MustCompile("`([^`]+)`")

// mappingRow is one row of a mapping table: the names in its informerlab cell.
type mappingRow struct {
	line  int
	names []string
}

// splitCells splits a table row into its trimmed cells; "\|" does not split.
func splitCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, strings.TrimSpace(line[start:i]))
			start = i + 1
		}
	}
	return append(cells, strings.TrimSpace(line[start:]))
}

func isTableRow(line string) bool { return strings.HasPrefix(strings.TrimSpace(line), "|") }

var separatorRow = regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$`)

// mappingRows returns the rows of every table whose first header cell is
// informerlab, and a problem for each such table whose header is not exactly
// informerlab | upstream | notes and for each row whose first cell holds
// anything but `pkg.Name` code spans.
func mappingRows(markdown string) ([]mappingRow, []string) {
	var rows []mappingRow
	var problems []string
	lines := strings.Split(markdown, "\n")
	for i := 0; i < len(lines); i++ {
		if !isTableRow(lines[i]) || i+1 >= len(lines) || !separatorRow.MatchString(strings.TrimSpace(lines[i+1])) {
			continue
		}
		header := splitCells(lines[i])
		if strings.Trim(header[0], "`") != mappingHeader[0] {
			continue
		}
		for j := range header {
			header[j] = strings.Trim(header[j], "`")
		}
		if strings.Join(header, "|") != strings.Join(mappingHeader, "|") {
			problems = append(problems, fmt.Sprintf("line %d: table header is %q, want %q", i+1, header, mappingHeader))
		}
		i += 2
		for ; i < len(lines) && isTableRow(lines[i]); i++ {
			cells := splitCells(lines[i])
			if len(cells) != len(mappingHeader) {
				problems = append(problems, fmt.Sprintf("line %d: %d cells, want %d", i+1, len(cells), len(mappingHeader)))
			}
			row := mappingRow{line: i + 1}
			for _, m := range codeSpan.FindAllStringSubmatch(cells[0], -1) {
				if !qualifiedName.MatchString(m[1]) {
					problems = append(problems, fmt.Sprintf("line %d: `%s` is not written as pkg.Name or pkg.Type.Member", i+1, m[1]))
					continue
				}
				row.names = append(row.names, m[1])
			}
			if rest := strings.TrimSpace(codeSpan.ReplaceAllString(cells[0], "")); strings.Trim(rest, ", ") != "" {
				problems = append(problems, fmt.Sprintf("line %d: the informerlab cell holds %q besides its names", i+1, rest))
			}
			if len(row.names) == 0 {
				problems = append(problems, fmt.Sprintf("line %d: no `pkg.Name` in the informerlab cell", i+1))
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		problems = append(problems, "no table with the header informerlab | upstream | notes")
	}
	return rows, problems
}

// checkName returns an error unless name (pkg.Name or pkg.Type.Member) is
// declared by the packages.
func checkName(pkgs map[string]*goPackage, name string) error {
	m := qualifiedName.FindStringSubmatch(name)
	if m == nil {
		return fmt.Errorf("%s: not pkg.Name or pkg.Type.Member", name)
	}
	pkg, ok := pkgs[m[1]]
	if !ok {
		return fmt.Errorf("%s: there is no package %s", name, m[1])
	}
	if !pkg.exported[m[2]] {
		return fmt.Errorf("%s: package %s declares no exported %s", name, m[1], m[2])
	}
	if m[3] != "" && !pkg.hasMember(m[2], m[3]) {
		return fmt.Errorf("%s: %s.%s has no exported method or field %s", name, m[1], m[2], m[3])
	}
	return nil
}

// uncovered returns, sorted, the pkg.Name of every exported top-level name
// of the packages that no row names.
func uncovered(pkgs map[string]*goPackage, rows []mappingRow) []string {
	named := map[string]bool{}
	for _, row := range rows {
		for _, n := range row.names {
			named[n] = true
		}
	}
	var missing []string
	for pkgName, pkg := range pkgs {
		for name := range pkg.exported {
			if q := pkgName + "." + name; !named[q] {
				missing = append(missing, q)
			}
		}
	}
	sort.Strings(missing)
	return missing
}

// readMapping parses docs/mapping.md and the module's library packages.
func readMapping(t *testing.T) ([]mappingRow, map[string]*goPackage) {
	t.Helper()
	root := repoRoot(t)
	text, err := os.ReadFile(filepath.Join(root, "docs", "mapping.md"))
	require.NoError(t, err)
	rows, problems := mappingRows(string(text))
	assert.Empty(t, problems, "docs/mapping.md")
	all, err := modulePackages(root, false)
	require.NoError(t, err)
	pkgs, err := libraryPackages(all)
	require.NoError(t, err)
	require.NotEmpty(t, pkgs)
	return rows, pkgs
}

// TestMappingNamesExist checks every name in the informerlab column of
// docs/mapping.md against the packages' source.
// Diagram: all steps. client-go: none (the mapping table).
func TestMappingNamesExist(t *testing.T) {
	rows, pkgs := readMapping(t)

	names := 0
	for _, row := range rows {
		for _, name := range row.names {
			names++
			assert.NoError(t, checkName(pkgs, name), "docs/mapping.md:%d", row.line)
		}
	}
	t.Logf("docs/mapping.md: %d rows name %d informerlab names; each was looked up in its package's source", len(rows), names)
}

// TestMappingCoversEveryExportedName checks that docs/mapping.md names every
// exported name of every package, so that a new name needs a row.
// Diagram: all steps. client-go: none (the mapping table).
func TestMappingCoversEveryExportedName(t *testing.T) {
	rows, pkgs := readMapping(t)

	missing := uncovered(pkgs, rows)
	t.Logf("%d library packages; exported names without a row in docs/mapping.md: %d", len(pkgs), len(missing))
	assert.Empty(t, missing, "exported names without a row in docs/mapping.md")
}

// TestMappingCheckerRejectsBadNames runs the mapping checks on a small
// package and a small table.
// Diagram: none. client-go: none.
func TestMappingCheckerRejectsBadNames(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.go"), []byte(`package lab

type Store interface{ Add(obj any) error }
type Indexer interface {
	Store
	ByIndex(name, value string) ([]any, error)
}
type Options struct {
	Name   string
	hidden int
}
type Queue[T comparable] struct{}

func (q *Queue[T]) Add(item T) {}
func (o Options) Valid() bool  { return true }
func New() *Queue[string]      { return nil }
func helper()                  {}

const Limit = 3

var ErrClosed error
`), 0o644))
	pkg, err := parsePackage(dir)
	require.NoError(t, err)
	pkgs := map[string]*goPackage{"lab": pkg}

	for _, good := range []string{"lab.Store", "lab.Indexer.Add", "lab.Indexer.ByIndex", "lab.Indexer.Store",
		"lab.Options.Name", "lab.Options.Valid", "lab.Queue.Add", "lab.New", "lab.Limit", "lab.ErrClosed"} {
		assert.NoError(t, checkName(pkgs, good), good)
	}
	for _, bad := range []string{"lab.Missing", "lab.helper", "lab.Options.hidden", "lab.Options.Nope",
		"lab.New.Add", "other.Store", "Store", "lab.Store.Add.More"} {
		assert.Error(t, checkName(pkgs, bad), bad)
	}

	table := "intro\n\n" +
		"| informerlab | upstream | notes |\n|---|---|---|\n" +
		"| `lab.Store`, `lab.New` | `tools/cache.Store` | |\n" +
		"| `lab.Limit` | none | `\\|` in a cell |\n" +
		"\n| other | table |\n|---|---|\n| `x.Y` | z |\n"
	rows, problems := mappingRows(table)
	assert.Empty(t, problems)
	assert.Equal(t, []mappingRow{{line: 5, names: []string{"lab.Store", "lab.New"}}, {line: 6, names: []string{"lab.Limit"}}}, rows)
	assert.Equal(t, []string{"lab.ErrClosed", "lab.Indexer", "lab.Options", "lab.Queue"}, uncovered(pkgs, rows))

	_, problems = mappingRows("| informerlab | upstream |\n|---|---|\n| `lab.Store` | x |\n")
	assert.Len(t, problems, 2, "a wrong header and a short row: %q", problems)
	_, problems = mappingRows("| informerlab | upstream | notes |\n|---|---|---|\n| `Store` and more | x | y |\n| plain | x | y |\n")
	assert.Len(t, problems, 5, "a bad name, stray text twice, two rows without a valid name: %q", problems)
	_, problems = mappingRows("no tables here\n")
	assert.Len(t, problems, 1)
}
