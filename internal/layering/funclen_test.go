package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is docs/design.md's bound on a function of the module (tests aside).
const maxFuncLines = 100

// longFuncs names the functions allowed past maxFuncLines, each with the length it may reach
// and why it stays whole. Keys are "dir/file.go:Recv.Name".
var longFuncs = map[string]struct {
	lines int
	why   string
}{
	"internal/schema/infer.go:node.appendJSON": {114, "one flat list of keys in the order jsonschema.Schema.MarshalJSON writes them; that order is the contract"},
	"cmd/wield/chat.go:app.chatCommand":        {111, "the command's flag declarations, one a line"},
	"cmd/wield/slash.go:chatLoop.slashCommand": {109, "one short case per slash command"},
}

// TestFunctionLength fails on a function of the module (tests and the temporal module aside)
// longer than maxFuncLines that longFuncs does not name, on one that grew past its entry, and on
// an entry that no longer needs to be there.
func TestFunctionLength(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "temporal" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n <= maxFuncLines {
				continue
			}
			key := filepath.ToSlash(rel) + ":" + funcName(fn)
			seen[key] = true
			switch allowed, ok := longFuncs[key]; {
			case !ok:
				t.Errorf("%s is %d lines, more than %d: split it where a reader gains, or name it in longFuncs with why it stays", key, n, maxFuncLines)
			case n > allowed.lines:
				t.Errorf("%s grew to %d lines, past the %d longFuncs allows", key, n, allowed.lines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range longFuncs {
		if !seen[key] {
			t.Errorf("longFuncs names %s, which is gone or no longer over %d lines: remove the entry", key, maxFuncLines)
		}
	}
}

// funcName is a declaration's name, with its receiver's type when it is a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
