// Command sizebench measures what a wield program weighs. It builds, side by side in a temporary
// module that replaces wield with this checkout, the minimal library program (one tool.Func,
// openai.New, one turn; testdata/wield) and the same turn written on openai-go alone
// (testdata/raw), and prints both sizes, plain and stripped (-ldflags='-s -w'), and their ratio.
// -modules adds each binary's size per module, from the symbol table; -cmd adds the wield
// command; -cold adds each build's CPU per module from an empty build cache. Run by scripts/size.
package main

import (
	"cmp"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

const module = "github.com/wield-ai/wield"

// toolexecLog names the file the -toolexec wrapper appends to; set, this program is the wrapper.
const toolexecLog = "SIZEBENCH_TOOLEXEC_LOG"

func main() {
	if log := os.Getenv(toolexecLog); log != "" {
		os.Exit(wrap(log, os.Args[1:]))
	}
	var (
		root    = flag.String("root", ".", "the wield checkout")
		modules = flag.Bool("modules", false, "print each binary's size per module")
		withCmd = flag.Bool("cmd", false, "also measure the wield command (./cmd/wield)")
		cold    = flag.Bool("cold", false, "also measure each build's CPU per module from an empty build cache (slow)")
		top     = flag.Int("top", 15, "rows of the per-module tables")
		symbols = flag.Int("symbols", 0, "print the N largest symbols of the wield program")
		diff    = flag.Bool("diff", false, "print the packages making the difference between the wield program and the raw one")
	)
	flag.Parse()
	if err := run(*root, *modules, *withCmd, *cold, *diff, *top, *symbols); err != nil {
		fmt.Fprintln(os.Stderr, "sizebench:", err)
		os.Exit(1)
	}
}

// A target is a program to build: a package directory inside dir.
type target struct {
	name, dir, pkg string
}

func run(root string, modules, withCmd, cold, diff bool, top, symbols int) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "sizebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	mod, err := tempModule(root, tmp)
	if err != nil {
		return err
	}
	targets := []target{{"raw openai-go", mod, "./raw"}, {"wield minimal", mod, "./wield"}}
	if withCmd {
		targets = append(targets, target{"wield command", root, "./cmd/wield"})
	}
	type result struct {
		plain, stripped int64
		bin             string
	}
	results := make([]result, len(targets))
	for i, t := range targets {
		bin := filepath.Join(tmp, fmt.Sprintf("bin%d", i))
		if err := goCmd(t.dir, nil, "build", "-o", bin, t.pkg).Run(); err != nil {
			return fmt.Errorf("build %s: %w", t.name, err)
		}
		if err := goCmd(t.dir, nil, "build", "-ldflags=-s -w", "-o", bin+".stripped", t.pkg).Run(); err != nil {
			return fmt.Errorf("build %s stripped: %w", t.name, err)
		}
		results[i] = result{plain: fileSize(bin), stripped: fileSize(bin + ".stripped"), bin: bin}
	}
	fmt.Printf("go %s %s/%s, %s\n\n", strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, gitHead(root))
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "program\tplain MB\tstripped MB\tplain ×raw\tstripped ×raw\t")
	for i, t := range targets {
		r := results[i]
		fmt.Fprintf(w, "%s\t%.1f\t%.1f\t%.2f\t%.2f\t\n", t.name, mb(r.plain), mb(r.stripped),
			float64(r.plain)/float64(results[0].plain), float64(r.stripped)/float64(results[0].stripped))
	}
	w.Flush()

	if modules {
		for i, t := range targets {
			sizes, err := moduleSizes(t.dir, results[i].bin)
			if err != nil {
				return err
			}
			fmt.Printf("\n%s: symbol bytes per module (text, rodata, data; the rest of the file is\nruntime tables and, unstripped, DWARF)\n", t.name)
			printTable(sizes, top, func(v int64) string { return fmt.Sprintf("%.2f MB", mb(v)) })
		}
	}
	for _, t := range targets {
		callers, err := reflectMethodCallers(t)
		if err != nil {
			return err
		}
		if len(callers) == 0 {
			continue
		}
		fmt.Printf("\n%s: the linker keeps every exported method of every type in it, since these\nfunctions call reflect's Method or MethodByName with a name it cannot know:\n", t.name)
		for _, c := range callers {
			fmt.Printf("  %s\n", c)
		}
	}
	if diff {
		if err := packageDiff(results[1].bin, results[0].bin, top); err != nil {
			return err
		}
	}
	if symbols > 0 {
		if err := largestSymbols(results[1].bin, symbols); err != nil {
			return err
		}
	}
	if cold {
		for _, t := range targets {
			if err := coldBuild(t, tmp, top); err != nil {
				return err
			}
		}
	}
	return nil
}

// reflectMethodCallers returns the functions of t, outside package reflect, that call
// reflect.Type.Method, MethodByName or their reflect.Value forms with a non-constant argument
// and are reached by calls (not only kept as methods), each with its caller: the linker's dead
// code elimination then keeps all exported methods of reachable types.
func reflectMethodCallers(t target) ([]string, error) {
	// The go command passes the linker's output on to its standard error.
	var out strings.Builder
	c := goCmd(t.dir, nil, "build", "-o", os.DevNull, "-ldflags=-dumpdep", t.pkg)
	c.Stderr = &out
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("build %s -dumpdep: %w", t.name, err)
	}
	var callers []string
	seen := map[string]bool{}
	for line := range strings.Lines(out.String()) {
		from, to, ok := strings.Cut(strings.TrimSpace(line), " -> ")
		if !ok || !strings.HasSuffix(to, " <ReflectMethod>") || strings.HasPrefix(from, "type:") {
			continue
		}
		to = strings.TrimSuffix(to, " <ReflectMethod>")
		if strings.HasPrefix(to, "reflect.") || seen[to] {
			continue
		}
		seen[to] = true
		callers = append(callers, to+"  (from "+strings.TrimSuffix(from, " <ReflectMethod>")+")")
	}
	return callers, nil
}

// tempModule writes a module holding the two programs of testdata, requiring wield replaced by
// root and the openai-go version root requires, and returns its directory.
func tempModule(root, tmp string) (string, error) {
	dir := filepath.Join(tmp, "mod")
	for _, p := range []string{"wield", "raw"} {
		src, err := os.ReadFile(filepath.Join(root, "internal/sizebench/testdata", p, "main.go"))
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, p, "main.go"), src, 0o644); err != nil {
			return "", err
		}
	}
	out, err := goCmd(root, nil, "list", "-m", "-f", "{{.Path}} {{.Version}}", "github.com/openai/openai-go/v3").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m: %w", err)
	}
	gomod := fmt.Sprintf("module sizebench\n\ngo 1.26\n\nrequire (\n\t%s v0.0.0\n\t%s\n)\n\nreplace %s => %s\n",
		module, strings.TrimSpace(string(out)), module, root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		return "", err
	}
	// Completes go.mod with the indirect requirements, from the module cache.
	if err := goCmd(dir, nil, "mod", "tidy").Run(); err != nil {
		return "", fmt.Errorf("go mod tidy: %w", err)
	}
	return dir, nil
}

func goCmd(dir string, env []string, args ...string) *exec.Cmd {
	c := exec.Command("go", args...)
	c.Dir = dir
	c.Stderr = os.Stderr
	c.Env = append(os.Environ(), env...)
	return c
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func gitHead(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "no git"
	}
	return "wield at " + strings.TrimSpace(string(out))
}

// modulesOf returns the module paths a binary was built from, its main module included.
func modulesOf(dir, bin string) ([]string, error) {
	out, err := goCmd(dir, nil, "version", "-m", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("go version -m: %w", err)
	}
	var mods []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "mod" || f[0] == "dep") {
			mods = append(mods, f[1])
		}
	}
	// Longest first, so that a nested module wins over its parent.
	slices.SortFunc(mods, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return mods, nil
}

// moduleOf names the module of a package path: "std" for the standard library.
func moduleOf(pkg string, mods []string) string {
	switch pkg {
	case "":
		return "(unattributed)"
	case "main":
		return "(main package)"
	}
	first, _, _ := strings.Cut(pkg, "/")
	if !strings.Contains(first, ".") {
		return "std"
	}
	for _, m := range mods {
		if pkg == m || strings.HasPrefix(pkg, m+"/") {
			return m
		}
	}
	return pkg
}

// symbolPackage returns the package path a symbol belongs to, or "" if its name does not say.
// In symbol names the last element of a package path has its dots escaped, so the path ends at
// the first dot after its first slash (after the domain): "a.b/c/d.T.e.f/g.M" is a method of
// package a.b/c/d promoted from e.f/g.
func symbolPackage(name string) string {
	for _, p := range []string{"type:", "go:itab.", ".eq.", "*"} {
		name = strings.TrimPrefix(name, p)
	}
	if strings.HasPrefix(name, "go:") || strings.HasPrefix(name, "struct {") {
		return ""
	}
	if i := strings.IndexAny(name, "([,"); i >= 0 {
		name = name[:i]
	}
	from := max(strings.Index(name, "/"), 0)
	dot := strings.Index(name[from:], ".")
	if dot < 0 {
		return ""
	}
	return strings.ReplaceAll(name[:from+dot], "%2e", ".")
}

// nmSymbols reads a binary's symbol table: name and size of each symbol stored in the file
// (not those of zeroed sections, which take no room in it).
func nmSymbols(bin string) ([]sym, error) {
	zeroed := zeroedSections(bin)
	out, err := exec.Command("go", "tool", "nm", "-size", "-sort", "size", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool nm: %w", err)
	}
	var syms []sym
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		size, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil || slices.ContainsFunc(zeroed, func(r [2]uint64) bool { return addr >= r[0] && addr < r[1] }) {
			continue
		}
		switch f[2] {
		case "T", "t", "R", "r", "D", "d":
			syms = append(syms, sym{name: strings.Join(f[3:], " "), size: size})
		}
	}
	return syms, nil
}

// zeroedSections returns the address ranges of an ELF binary's sections that occupy no space in
// the file (.bss, .noptrbss); nm reports their symbols as data. Nil for other formats.
func zeroedSections(bin string) [][2]uint64 {
	f, err := elf.Open(bin)
	if err != nil {
		return nil
	}
	defer f.Close()
	var r [][2]uint64
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOBITS {
			r = append(r, [2]uint64{s.Addr, s.Addr + s.Size})
		}
	}
	return r
}

type sym struct {
	name string
	size int64
}

func moduleSizes(dir, bin string) (map[string]int64, error) {
	mods, err := modulesOf(dir, bin)
	if err != nil {
		return nil, err
	}
	syms, err := nmSymbols(bin)
	if err != nil {
		return nil, err
	}
	sizes := map[string]int64{}
	for _, s := range syms {
		sizes[moduleOf(symbolPackage(s.name), mods)] += s.size
	}
	return sizes, nil
}

// packageSizes returns the bytes of a binary's symbols per package.
func packageSizes(syms []sym) map[string]int64 {
	pkgs := map[string]int64{}
	for _, s := range syms {
		pkgs[cmp.Or(symbolPackage(s.name), "(unattributed)")] += s.size
	}
	return pkgs
}

// packageDiff prints the packages whose symbols differ most in size between two binaries.
func packageDiff(bin, base string, n int) error {
	a, err := nmSymbols(bin)
	if err != nil {
		return err
	}
	b, err := nmSymbols(base)
	if err != nil {
		return err
	}
	d := packageSizes(a)
	for k, v := range packageSizes(b) {
		d[k] -= v
	}
	var total int64
	for _, v := range d {
		total += v
	}
	keys := slices.Collect(maps.Keys(d))
	slices.SortFunc(keys, func(x, y string) int { return cmp.Or(cmp.Compare(abs(d[y]), abs(d[x])), cmp.Compare(x, y)) })
	fmt.Printf("\nwield minimal against raw openai-go: symbol bytes per package, %+.2f MB in all\n", mb(total))
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	for _, k := range keys[:min(n, len(keys))] {
		fmt.Fprintf(w, "  %+8.1f KB\t%s\n", float64(d[k])/1e3, k)
	}
	return w.Flush()
}

func abs(n int64) int64 { return max(n, -n) }

func largestSymbols(bin string, n int) error {
	syms, err := nmSymbols(bin)
	if err != nil {
		return err
	}
	fmt.Printf("\nwield minimal: the %d largest packages\n", n)
	printTable(packageSizes(syms), n, func(v int64) string { return fmt.Sprintf("%.3f MB", mb(v)) })
	fmt.Printf("\nwield minimal: the %d largest symbols\n", n)
	for i, s := range syms {
		if i == n {
			break
		}
		fmt.Printf("  %9d  %s\n", s.size, s.name)
	}
	return nil
}

func printTable(m map[string]int64, top int, format func(int64) string) {
	keys := make([]string, 0, len(m))
	var total int64
	for k, v := range m {
		keys = append(keys, k)
		total += v
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	var rest int64
	for i, k := range keys {
		if i >= top {
			rest += m[k]
			continue
		}
		fmt.Fprintf(w, "  %s\t%s\n", format(m[k]), k)
	}
	if rest > 0 {
		fmt.Fprintf(w, "  %s\t(%d more)\n", format(rest), len(keys)-top)
	}
	fmt.Fprintf(w, "  %s\ttotal\n", format(total))
	w.Flush()
}

// coldBuild builds t with an empty build cache (the module cache is kept: downloads are not
// counted), with this program as -toolexec, and prints the CPU time of the compiler, assembler
// and linker per module.
func coldBuild(t target, tmp string, top int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cache, err := os.MkdirTemp(tmp, "gocache-")
	if err != nil {
		return err
	}
	log := filepath.Join(tmp, "toolexec.log")
	os.Remove(log)
	bin := filepath.Join(tmp, "cold")
	c := goCmd(t.dir, []string{"GOCACHE=" + cache, toolexecLog + "=" + log}, "build", "-toolexec", self, "-o", bin, t.pkg)
	start := time.Now()
	if err := c.Run(); err != nil {
		return fmt.Errorf("cold build %s: %w", t.name, err)
	}
	wall := time.Since(start)
	total := c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	mods, err := modulesOf(t.dir, bin)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(log)
	if err != nil {
		return err
	}
	cpu := map[string]int64{}
	var tools time.Duration
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		d, err := time.ParseDuration(f[2])
		if err != nil {
			continue
		}
		tools += d
		key := moduleOf(f[0], mods)
		if f[0] == "-" {
			key = "(" + f[1] + ")"
		}
		cpu[key] += int64(d)
	}
	fmt.Printf("\n%s: cold build, %.0f s CPU (%.0f s in compiler, assembler, linker), %.0f s wall; CPU per module\n",
		t.name, total.Seconds(), tools.Seconds(), wall.Seconds())
	printTable(cpu, top, func(v int64) string { return fmt.Sprintf("%6.1f s", time.Duration(v).Seconds()) })
	os.RemoveAll(cache)
	return nil
}

// wrap runs a build tool, as go build's -toolexec, and appends to log the package it worked on
// (its -p flag, "-" for none), the tool's name and the CPU time it took.
func wrap(log string, args []string) int {
	if len(args) == 0 {
		return 2
	}
	c := exec.Command(args[0], args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "sizebench:", err)
		return 1
	}
	// go build asks each tool for its version (-V=full); those runs compile nothing.
	if !slices.ContainsFunc(args[1:], func(a string) bool { return strings.HasPrefix(a, "-V") }) {
		pkg := "-"
		for i, a := range args[1 : len(args)-1] {
			if a == "-p" {
				pkg = args[i+2]
			}
		}
		d := c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		line := fmt.Sprintf("%s %s %s\n", pkg, strings.TrimSuffix(filepath.Base(args[0]), ".exe"), d)
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			// One write of a short line: concurrent tools do not interleave.
			f.WriteString(line)
			f.Close()
		}
	}
	return c.ProcessState.ExitCode()
}
