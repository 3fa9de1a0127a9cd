package moduletest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLayersAsDocumented holds the code to the layer table of
// docs/ARCHITECTURE.md: every package is in the table, and each imports
// only packages of lower layers.
func TestLayersAsDocumented(t *testing.T) {
	root := "../.."
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	layer := map[string]int{}
	for _, m := range regexp.MustCompile("(?m)^\\| (\\d+) \\| `([a-z/]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		n, _ := strconv.Atoi(m[1])
		layer[m[2]] = n
	}
	imports := moduleImports(t, root)
	if len(imports) < 10 {
		t.Fatalf("found only %d packages under %s", len(imports), root)
	}
	for pkg, deps := range imports {
		l, ok := layer[pkg]
		if !ok {
			t.Errorf("package %s is not in the layer table of docs/ARCHITECTURE.md", pkg)
			continue
		}
		for _, dep := range deps {
			if dl, ok := layer[dep]; ok && dl >= l {
				t.Errorf("%s (layer %d) imports %s (layer %d): a package may import only lower layers", pkg, l, dep, dl)
			}
		}
	}
	for pkg := range layer {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("docs/ARCHITECTURE.md names %s, which is no package", pkg)
		}
	}
}

// isModuleRoot reports whether dir holds a go.mod of its own: such a
// folder is another module (vendored with patches, wired by a replace
// directive) and, like any dependency, outside the layer table.
func isModuleRoot(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// moduleImports maps each package of the module (by its path below the
// module, "ttftlab" for the root) to the module's packages its non-test
// files import. Folders that are modules of their own are skipped.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	const module = "ttftlab"
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root && isModuleRoot(path) {
			return filepath.SkipDir // its own module (the patched gopher-lua): outside the layers
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if pkg == "." {
			pkg = module
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		deps := out[pkg]
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				deps = append(deps, rest)
			}
		}
		out[pkg] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
