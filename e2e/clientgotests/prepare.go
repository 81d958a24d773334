package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A testFile is one of client-go's test files after preparation: what it
// declares, what was taken out, and the source to compile.
type testFile struct {
	Name     string   // base name, e.g. "store_test.go"
	Tests    []string // every Test and Example function of the original file
	Decls    []string // every top-level declaration of the original file
	Dropped  []string // declarations taken out, listed or unreachable
	Source   []byte   // nil when the whole file is left out
	DeclLine []declLines
}

// declLines is where one top-level declaration sits in the prepared source,
// so that a compile error can be traced to the declaration it is in.
type declLines struct {
	Name        string
	First, Last int
}

// isRun reports whether a function name is one go test runs as a test here.
// Benchmarks and fuzz targets are never run by this check, so they are
// always taken out.
func isRun(name string) bool {
	return (strings.HasPrefix(name, "Test") && name != "TestMain") || strings.HasPrefix(name, "Example")
}

// declName names a top-level declaration the way the list does: a function
// by its name, a method as Type.Method, a type, var or const by its first
// name ("_" for a blank var, which names no one).
func declName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) == 1 {
			return recvType(d.Recv.List[0].Type) + "." + d.Name.Name
		}
		return d.Name.Name
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				return s.Name.Name
			case *ast.ValueSpec:
				return s.Names[0].Name
			}
		}
	}
	return ""
}

// recvType is the type name of a method receiver: T for T, *T, T[P], *T[P].
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// declared lists the package-level names a declaration introduces.
func declared(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.Name != "_" {
						names = append(names, n.Name)
					}
				}
			}
		}
		return names
	}
	return nil
}

// prepareSuite reads client-go's test files in srcDir and prepares them for
// the shim package: listed files and declarations are taken out, then every
// declaration no remaining test reaches (benchmarks always), then the
// imports nothing uses any more. rewrite maps an import path to another
// (client-go's own package, for an external test file, to the shim).
// Nothing else of a file is touched.
func prepareSuite(srcDir string, drop map[string]bool, rewrite map[string]string) ([]testFile, error) {
	paths, err := filepath.Glob(filepath.Join(srcDir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	fset := token.NewFileSet()
	var files []*ast.File
	var out []testFile
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("clientgotests: %w", err)
		}
		tf := testFile{Name: filepath.Base(p)}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && isRun(fd.Name.Name) {
				tf.Tests = append(tf.Tests, fd.Name.Name)
			}
			if gd, ok := d.(*ast.GenDecl); !ok || gd.Tok != token.IMPORT {
				tf.Decls = append(tf.Decls, declName(d))
			}
		}
		if drop[tf.Name] {
			tf.Dropped = append(tf.Dropped, tf.Tests...)
			f = nil
		}
		files = append(files, f)
		out = append(out, tf)
	}

	// Packages are reached by name: a file's external test package
	// (package x_test) is its own namespace.
	keep := reachable(files, drop)
	for i, f := range files {
		if f == nil {
			continue
		}
		var decls []ast.Decl
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				decls = append(decls, d)
				continue
			}
			if keep[d] {
				decls = append(decls, d)
			} else {
				out[i].Dropped = append(out[i].Dropped, declName(d))
			}
		}
		f.Decls = decls
		f.Comments = commentsWithin(f)
		pruneImports(f, rewrite)
		var buf bytes.Buffer
		if err := printer.Fprint(&buf, fset, f); err != nil {
			return nil, err
		}
		out[i].Source = buf.Bytes()
		out[i].DeclLine, err = lineRanges(out[i].Name, buf.Bytes())
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// reachable marks the declarations to keep: every test and example not
// dropped, TestMain, and whatever they reach by name, transitively; a
// method is kept with its type; a blank var (an interface assertion) is kept
// when every name of the files it mentions is kept.
func reachable(files []*ast.File, drop map[string]bool) map[ast.Decl]bool {
	type unit struct {
		pkg  string
		decl ast.Decl
	}
	byName := map[string][]ast.Decl{} // pkg + "." + name
	methods := map[string][]ast.Decl{}
	var roots, blanks []unit
	droppedNames := map[string]bool{} // pkg + "." + name of a listed declaration
	for _, f := range files {
		if f == nil {
			continue
		}
		pkg := f.Name.Name
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				continue
			}
			name := declName(d)
			if drop[name] {
				for _, n := range declared(d) {
					droppedNames[pkg+"."+n] = true
				}
				continue
			}
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fd.Recv != nil {
					t := pkg + "." + recvType(fd.Recv.List[0].Type)
					methods[t] = append(methods[t], d)
					continue
				}
				if isRun(name) || name == "TestMain" || name == "init" {
					roots = append(roots, unit{pkg, d})
				}
			}
			names := declared(d)
			if len(names) == 0 {
				blanks = append(blanks, unit{pkg, d})
			}
			for _, n := range names {
				byName[pkg+"."+n] = append(byName[pkg+"."+n], d)
			}
		}
	}
	mentions := func(pkg string, d ast.Decl) (keys []string, dropped bool) {
		ast.Inspect(d, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if _, ok := byName[pkg+"."+id.Name]; ok {
					keys = append(keys, pkg+"."+id.Name)
				}
				dropped = dropped || droppedNames[pkg+"."+id.Name]
			}
			return true
		})
		return keys, dropped
	}
	keep := map[ast.Decl]bool{}
	seenType := map[string]bool{}
	var visit func(pkg string, d ast.Decl)
	visit = func(pkg string, d ast.Decl) {
		if keep[d] {
			return
		}
		keep[d] = true
		keys, _ := mentions(pkg, d)
		for _, key := range keys {
			for _, dd := range byName[key] {
				visit(pkg, dd)
			}
			if !seenType[key] {
				seenType[key] = true
				for _, m := range methods[key] {
					visit(pkg, m)
				}
			}
		}
	}
	for _, r := range roots {
		visit(r.pkg, r.decl)
	}
	for changed := true; changed; {
		changed = false
		for _, b := range blanks {
			if keep[b.decl] {
				continue
			}
			keys, dropped := mentions(b.pkg, b.decl)
			all := !dropped
			for _, key := range keys {
				for _, dd := range byName[key] {
					all = all && keep[dd]
				}
			}
			if all {
				visit(b.pkg, b.decl)
				changed = true
			}
		}
	}
	return keep
}

// commentsWithin keeps the comments that lie inside a kept declaration (or
// before the first one: the licence and package comment), so that a taken
// out declaration leaves no stray comment, and "// Output:" stays with its
// Example.
func commentsWithin(f *ast.File) []*ast.CommentGroup {
	var kept []*ast.CommentGroup
	for _, c := range f.Comments {
		if c.End() <= f.Package {
			kept = append(kept, c)
			continue
		}
		for _, d := range f.Decls {
			start := d.Pos()
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
				start = fd.Doc.Pos()
			}
			if gd, ok := d.(*ast.GenDecl); ok && gd.Doc != nil {
				start = gd.Doc.Pos()
			}
			if c.Pos() >= start && c.End() <= d.End() {
				kept = append(kept, c)
				break
			}
		}
	}
	return kept
}

// pruneImports removes the imports nothing in f uses any more and applies
// rewrite to the paths of the rest.
func pruneImports(f *ast.File, rewrite map[string]string) {
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		var specs []ast.Spec
		for _, s := range gd.Specs {
			is := s.(*ast.ImportSpec)
			path, _ := strconv.Unquote(is.Path.Value)
			name := importName(path)
			if is.Name != nil {
				name = is.Name.Name
			}
			if name != "_" && name != "." && !used[name] {
				continue
			}
			if to, ok := rewrite[path]; ok {
				is.Path.Value = strconv.Quote(to)
			}
			specs = append(specs, s)
		}
		gd.Specs = specs
	}
	var decls []ast.Decl
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT && len(gd.Specs) == 0 {
			continue
		}
		decls = append(decls, d)
	}
	f.Decls = decls
	f.Imports = nil
}

// importName is the name a package is imported under by default: the last
// element of its path, except for a module's major version suffix (the one
// client-go's tests import is k8s.io/klog/v2, package klog).
func importName(path string) string {
	if path == "k8s.io/klog/v2" {
		return "klog"
	}
	return path[strings.LastIndex(path, "/")+1:]
}

// lineRanges parses prepared source again and records where each top-level
// declaration starts and ends.
func lineRanges(name string, src []byte) ([]declLines, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("clientgotests: prepared %s does not parse: %w", name, err)
	}
	var out []declLines
	for _, d := range f.Decls {
		out = append(out, declLines{declName(d), fset.Position(d.Pos()).Line, fset.Position(d.End()).Line})
	}
	return out, nil
}

// writeOverlay writes the prepared files to tmp and returns the overlay
// file that makes go test see them in shimDir.
func writeOverlay(tmp, shimDir string, files []testFile) (string, error) {
	replace := map[string]string{}
	for _, f := range files {
		if f.Source == nil {
			continue
		}
		p := filepath.Join(tmp, f.Name)
		if err := os.WriteFile(p, f.Source, 0o644); err != nil {
			return "", err
		}
		replace[filepath.Join(shimDir, "zz_clientgo_"+f.Name)] = p
	}
	var b strings.Builder
	b.WriteString(`{"Replace":{`)
	first := true
	keys := make([]string, 0, len(replace))
	for k := range replace {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !first {
			b.WriteString(",")
		}
		first = false
		fmt.Fprintf(&b, "%s:%s", strconv.Quote(k), strconv.Quote(replace[k]))
	}
	b.WriteString("}}")
	overlay := filepath.Join(tmp, "overlay.json")
	return overlay, os.WriteFile(overlay, []byte(b.String()), 0o644)
}
