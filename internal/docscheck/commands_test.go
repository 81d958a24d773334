package docscheck

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goTestCommand is one `go test` command found in a document.
type goTestCommand struct {
	line     int
	dir      string   // the directory a "cd DIR && go test" runs in, relative to the root ("" for the root)
	text     string   // as found, for messages
	packages []string // package arguments: ./x, ./x/..., ./...
	args     []string // go test's arguments, as a shell would split them
	run      *string  // the -run pattern, if given
	bench    *string
	fuzz     *string
	verbose  bool // -v was given
}

// cdPrefix is a "cd DIR &&" right before a go test command.
var cdPrefix = regexp.MustCompile(`\bcd\s+(\S+)\s*&&\s*$`)

// goTestCommands finds every go test command with a -run, -bench or -fuzz
// flag in a markdown document: in code blocks, in inline code (up to the
// closing backtick) and in table cells, where "\|" stands for "|". A
// "cd DIR && " before the command is remembered: its packages are in DIR.
func goTestCommands(markdown string) []goTestCommand {
	var cmds []goTestCommand
	for i, line := range strings.Split(markdown, "\n") {
		if isTableRow(line) {
			line = strings.ReplaceAll(line, `\|`, "|")
		}
		for rest := line; ; {
			at := strings.Index(rest, "go test ")
			if at < 0 {
				break
			}
			dir := ""
			if m := cdPrefix.FindStringSubmatch(rest[:at]); m != nil {
				dir = path.Clean(m[1])
			}
			rest = rest[at+len("go test "):]
			text := rest
			if end := strings.IndexByte(text, '`'); end >= 0 {
				text = text[:end]
			}
			cmd := goTestCommand{line: i + 1, dir: dir, text: "go test " + strings.TrimSpace(text)}
			cmd.args = shellWords(text)
			parseArgs(&cmd, cmd.args)
			if dir != "" {
				cmd.text = "cd " + dir + " && " + cmd.text
				if len(cmd.packages) == 0 {
					cmd.packages = []string{"."}
				}
			}
			if cmd.run != nil || cmd.bench != nil || cmd.fuzz != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	return cmds
}

// shellWords splits s into words as a POSIX shell would, up to the end of
// the command: an unquoted |, ;, &, ) or a word starting with #.
func shellWords(s string) []string {
	var words []string
	var word strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				end = len(s) - i - 1
			}
			word.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
					i++
				}
				word.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			i++
			word.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t':
			flush()
		case strings.IndexByte("|;&)", c) >= 0, c == '#' && !inWord:
			flush()
			return words
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

// parseArgs fills cmd's packages and patterns from go test's arguments.
func parseArgs(cmd *goTestCommand, words []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "-v" || w == "-v=true" {
			cmd.verbose = true
		}
		if w == "." || strings.HasPrefix(w, "./") {
			cmd.packages = append(cmd.packages, w)
			continue
		}
		for _, flag := range []struct {
			name string
			dst  **string
		}{{"-run", &cmd.run}, {"-bench", &cmd.bench}, {"-fuzz", &cmd.fuzz}} {
			if v, ok := strings.CutPrefix(w, flag.name+"="); ok {
				*flag.dst = &v
			} else if w == flag.name && i+1 < len(words) {
				v := words[i+1]
				*flag.dst = &v
				i++
			}
		}
	}
}

// splitPattern splits a -run or -bench pattern as go test does: into
// alternatives at each "|" outside brackets and parentheses, and each
// alternative into per-level patterns at each "/" outside them. Like test
// names, the pattern has its spaces rewritten to underscores.
func splitPattern(s string) [][]string {
	s = strings.ReplaceAll(s, " ", "_")
	var alternatives [][]string
	var levels []string
	brackets, parens := 0, 0
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			if brackets > 0 {
				brackets--
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				levels = append(levels, s[start:i])
				start = i + 1
				if s[i] == '|' {
					alternatives = append(alternatives, levels)
					levels = nil
				}
			}
		}
	}
	levels = append(levels, s[start:])
	return append(alternatives, levels)
}

// checkCommand returns a problem for every way cmd fails to select tests of
// the packages (keyed by directory relative to the repository root): an
// unknown package, an invalid pattern, an alternative of -run or -bench
// that selects no function (or, when every function it selects names its
// subtests literally, no subtest), a -fuzz that selects no fuzz target.
// -run '^$' is the idiom for "no tests" and needs -bench or -fuzz.
func checkCommand(cmd goTestCommand, pkgs map[string]*goPackage) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var funcs []testFunc
	if len(cmd.packages) == 0 {
		report("names no package (./dir)")
	}
	for _, arg := range cmd.packages {
		if cmd.dir != "" && cmd.dir != "." {
			arg = "./" + path.Join(cmd.dir, arg)
		}
		found := false
		for dir, pkg := range pkgs {
			if matchesPackageArg(arg, dir) && len(pkg.tests) > 0 {
				found = true
				for _, f := range pkg.tests {
					funcs = append(funcs, f)
				}
			}
		}
		if !found {
			report("%s: no package with tests there", arg)
		}
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].name < funcs[j].name })

	if cmd.run != nil {
		if *cmd.run == "^$" {
			if cmd.bench == nil && cmd.fuzz == nil {
				report("-run '^$' selects nothing, and there is no -bench or -fuzz")
			}
		} else {
			problems = append(problems, checkPattern("-run", *cmd.run, funcs, "Test", "Example", "Fuzz")...)
		}
	}
	if cmd.bench != nil {
		problems = append(problems, checkPattern("-bench", *cmd.bench, funcs, "Benchmark")...)
	}
	if cmd.fuzz != nil {
		re, err := regexp.Compile(*cmd.fuzz)
		if err != nil {
			report("-fuzz %q: %v", *cmd.fuzz, err)
		} else if len(selected(re, funcs, "Fuzz")) == 0 {
			report("-fuzz %q selects no fuzz target", *cmd.fuzz)
		}
	}
	return problems
}

// checkPattern checks every alternative of a -run or -bench pattern against
// the functions of the given kinds.
func checkPattern(flag, pattern string, funcs []testFunc, kinds ...string) []string {
	var problems []string
	for _, levels := range splitPattern(pattern) {
		alt := strings.Join(levels, "/")
		top, err := regexp.Compile(levels[0])
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %q: %v", flag, pattern, err))
			continue
		}
		matched := selected(top, funcs, kinds...)
		if len(matched) == 0 {
			problems = append(problems, fmt.Sprintf("%s %q: %q selects no %s function", flag, pattern, alt, strings.Join(kinds, "/")))
			continue
		}
		if len(levels) < 2 {
			continue
		}
		sub, err := regexp.Compile(levels[1])
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %q: %v", flag, pattern, err))
			continue
		}
		known, found := true, false
		for _, f := range matched {
			if len(f.subtests) == 0 {
				known = false // subtests with computed names, or none: cannot tell
			}
			for _, s := range f.subtests {
				found = found || sub.MatchString(s)
			}
		}
		if known && !found {
			problems = append(problems, fmt.Sprintf("%s %q: %q selects no subtest of %s", flag, pattern, alt, names(matched)))
		}
	}
	return problems
}

// selected returns the functions of the given kinds whose names re matches.
func selected(re *regexp.Regexp, funcs []testFunc, kinds ...string) []testFunc {
	var out []testFunc
	for _, f := range funcs {
		for _, k := range kinds {
			if kind(f.name) == k && re.MatchString(f.name) {
				out = append(out, f)
			}
		}
	}
	return out
}

func names(funcs []testFunc) string {
	var out []string
	for _, f := range funcs {
		out = append(out, f.name)
	}
	return strings.Join(out, ", ")
}

// matchesPackageArg reports whether a go test package argument (".", "./x",
// "./x/...", "./...") covers dir ("." or "x/y").
func matchesPackageArg(arg, dir string) bool {
	arg = strings.TrimSuffix(strings.TrimPrefix(arg, "./"), "/")
	if arg == "." || arg == "" {
		return dir == "."
	}
	if base, ok := strings.CutSuffix(arg, "..."); ok {
		base = strings.TrimSuffix(base, "/")
		return base == "" || dir == base || strings.HasPrefix(dir, base+"/")
	}
	return dir == arg
}

// TestDocsGoTestCommandsSelectTests checks every go test command in
// README.md, docs/*.md and every package's doc.go against the tests the
// packages define.
// Diagram: all steps. client-go: none (the docs' commands).
func TestDocsGoTestCommandsSelectTests(t *testing.T) {
	root := repoRoot(t)
	pkgs, err := modulePackages(root, true)
	require.NoError(t, err)
	total := 0

	for _, doc := range append(docFiles(t, root), packageDocFiles(t, root)...) {
		text, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		for _, cmd := range goTestCommands(string(text)) {
			total++
			for _, p := range checkCommand(cmd, pkgs) {
				t.Errorf("%s:%d: %s: %s", doc, cmd.line, cmd.text, p)
			}
		}
	}
	t.Logf("%d commands checked", total)
	assert.Greater(t, total, 10, "the docs name fewer commands than expected: is the parser broken?")
}

// TestGoTestCommandsAreFoundAndParsed runs the command finder on a small
// document with every form the docs use.
// Diagram: none. client-go: none.
func TestGoTestCommandsAreFoundAndParsed(t *testing.T) {
	doc := "Run `go test ./a -run TestOne -v` (prose after).\n" +
		"```sh\n" +
		"go test -race ./b/... -run 'TestX|TestY' -count=1   # a comment -run Nope\n" +
		"go test ./c -run '^$' -bench . -benchtime=1x\n" +
		"go test ./d -run=Example -fuzz FuzzZ -fuzztime 10s\n" +
		"go test -race ./...\n" +
		"INFORMERLAB=1 go test ./e -run \"TestQ\" | tee out.txt\n" +
		"```\n" +
		"| step | command |\n|---|---|\n" +
		"| 5 | `go test ./f -run 'TestA\\|TestB' -v` |\n" +
		"    go test ./g -run TestA\\|TestB -v\n" +
		"    cd e2e && go test -run TestE2E -v\n"

	cmds := goTestCommands(doc)

	type got struct {
		line             int
		dir              string
		pkgs             []string
		run, bench, fuzz string
	}
	deref := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	var all []got
	for _, c := range cmds {
		all = append(all, got{c.line, c.dir, c.packages, deref(c.run), deref(c.bench), deref(c.fuzz)})
	}
	assert.Equal(t, []got{
		{1, "", []string{"./a"}, "TestOne", "<nil>", "<nil>"},
		{3, "", []string{"./b/..."}, "TestX|TestY", "<nil>", "<nil>"},
		{4, "", []string{"./c"}, "^$", ".", "<nil>"},
		{5, "", []string{"./d"}, "Example", "<nil>", "FuzzZ"},
		{7, "", []string{"./e"}, "TestQ", "<nil>", "<nil>"},
		{11, "", []string{"./f"}, "TestA|TestB", "<nil>", "<nil>"},
		{12, "", []string{"./g"}, "TestA|TestB", "<nil>", "<nil>"},
		{13, "e2e", []string{"."}, "TestE2E", "<nil>", "<nil>"},
	}, all)
	assert.Equal(t, [][]string{{"A"}, {"B", "c"}, {"D(x|y)", "[/|]"}}, splitPattern("A|B/c|D(x|y)/[/|]"))
}

// TestCommandCheckerRejectsPatternsThatSelectNothing runs the command
// checker against a small package.
// Diagram: none. client-go: none.
func TestCommandCheckerRejectsPatternsThatSelectNothing(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "lab", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lab", "lab_test.go"), []byte(`package lab

import "testing"

func TestAlpha(t *testing.T) {
	t.Run("step 1", func(t *testing.T) {})
	t.Run("step 2", func(t *testing.T) {})
}
func TestBeta(t *testing.T) {
	for _, name := range []string{"x"} {
		t.Run(name, func(t *testing.T) {})
	}
}
func Testlower(t *testing.T)          {}
func ExampleAlpha()                   {}
func BenchmarkAlpha(b *testing.B)     {}
func FuzzAlpha(f *testing.F)          {}
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lab", "sub", "sub_test.go"), []byte("package sub\n\nimport \"testing\"\n\nfunc TestGamma(t *testing.T) {}\n"), 0o644))
	lab, err := parsePackage(filepath.Join(dir, "lab"))
	require.NoError(t, err)
	sub, err := parsePackage(filepath.Join(dir, "lab", "sub"))
	require.NoError(t, err)
	pkgs := map[string]*goPackage{"lab": lab, "lab/sub": sub}
	check := func(command string) []string {
		cmds := goTestCommands(command)
		require.Len(t, cmds, 1, command)
		return checkCommand(cmds[0], pkgs)
	}

	for _, good := range []string{
		"go test ./lab -run TestAlpha -v",
		"go test ./lab -run '^TestAlpha$'",
		"go test ./lab -run 'TestAlpha|TestBeta|Example'",
		"go test ./lab -run TestAlpha/step_2",
		"go test ./lab -run 'TestAlpha/step 1'",
		"go test ./lab -run TestBeta/anything",
		"go test ./lab -run '^$' -bench .",
		"go test ./lab -run '^$' -fuzz FuzzAlpha",
		"go test ./lab -run Fuzz",
		"go test ./lab/... -run TestGamma",
		"go test ./... -run 'TestAlpha|TestGamma'",
		"cd lab && go test -run TestAlpha -v",
		"cd lab && go test ./sub -run TestGamma -v",
	} {
		assert.Empty(t, check(good), good)
	}
	for _, bad := range []string{
		"go test ./lab -run TestMissing",
		"go test ./lab -run 'TestAlpha|TestMissing'",
		"go test ./lab -run '^TestAlph$'",
		"go test ./lab -run Testlower",
		"go test ./lab -run 'TestAlpha\\|TestBeta'",
		"go test ./lab -run TestAlpha/step_3",
		"go test ./lab -run '^$'",
		"go test ./lab -run '^$' -bench Missing",
		"go test ./lab -run '^$' -fuzz TestAlpha",
		"go test ./lab -run 'Test('",
		"go test ./nowhere -run TestAlpha",
		"go test ./lab -run TestGamma",
		"go test -run TestAlpha",
		"cd lab && go test -run TestGamma -v",
		"cd lab/sub && go test ./... -run TestAlpha",
	} {
		assert.NotEmpty(t, check(bad), bad)
	}
}
