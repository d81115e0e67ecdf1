// Package lessons holds Tidemark's lesson content and the bundled scenario
// files, embedded in the binary, with a typed catalog over them.
package lessons

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/tidemark/tidemark/engine/scenario"
)

//go:embed scenarios
var files embed.FS

// Scenario is one bundled scenario file.
type Scenario struct {
	ID     string
	Title  string
	About  string
	Path   string // path inside the embedded tree, e.g. scenarios/hwm/visibility-gap.tdm
	Source []byte
	File   *scenario.File
}

// Each bundled file is parsed at most once, when it is first asked for:
// Lookup reads one file, and only Scenarios reads them all. A Cloudflare
// Worker starts a program for each request, and a picture of one scenario
// should not pay for parsing the other twenty-odd (docs/performance.md).
var (
	parsedMu sync.Mutex
	parsed   = map[string]parsedFile{} // by path inside the embedded tree

	loadOnce sync.Once
	catalog  []Scenario
	loadErr  error
)

// parsedFile is the result of reading one bundled file.
type parsedFile struct {
	sc  Scenario
	err error
}

// Scenarios returns every bundled scenario, ordered by id. A bundled file
// that does not parse is a build defect, reported as an error.
func Scenarios() ([]Scenario, error) {
	loadOnce.Do(func() { catalog, loadErr = load() })
	return catalog, loadErr
}

func load() ([]Scenario, error) {
	var out []Scenario
	err := fs.WalkDir(files, "scenarios", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".tdm" {
			return err
		}
		sc, err := read(p)
		if err != nil {
			return err
		}
		out = append(out, sc)
		return nil
	})
	slices.SortFunc(out, func(a, b Scenario) int { return strings.Compare(a.ID, b.ID) })
	return out, err
}

// read parses the bundled file at p (scenarios/….tdm), once: every caller
// gets the same *scenario.File, so a parse can be recognised as the
// catalog's own (see web/pages).
func read(p string) (Scenario, error) {
	parsedMu.Lock()
	defer parsedMu.Unlock()
	if r, ok := parsed[p]; ok {
		return r.sc, r.err
	}
	sc, err := parse(p)
	parsed[p] = parsedFile{sc, err}
	return sc, err
}

func parse(p string) (Scenario, error) {
	src, err := files.ReadFile(p)
	if err != nil {
		return Scenario{}, err
	}
	f, err := scenario.Parse("lessons/"+p, src)
	if err != nil {
		return Scenario{}, err
	}
	want := strings.TrimSuffix(strings.TrimPrefix(p, "scenarios/"), ".tdm")
	if f.ID != want {
		return Scenario{}, fmt.Errorf("lessons/%s: scenario id %q does not match its path; expected %q", p, f.ID, want)
	}
	return Scenario{ID: f.ID, Title: f.Title, About: f.About, Path: p, Source: src, File: f}, nil
}

// Lookup returns the bundled scenario with id, reading only its own file.
func Lookup(id string) (Scenario, bool) {
	p := "scenarios/" + id + ".tdm"
	if id == "" || !fs.ValidPath(p) {
		return Scenario{}, false
	}
	if _, err := fs.Stat(files, p); err != nil {
		return Scenario{}, false
	}
	sc, err := read(p)
	if err != nil {
		return Scenario{}, false
	}
	return sc, true
}

// Near returns the ids of bundled scenarios whose id is within a few edits
// of id, the closest first: what a mistyped id most likely meant. It reads
// the names of the files only, none of their text. An id with no such
// neighbour that holds a bundled id whole, as a path or an address does
// (/scenarios/hwm/visibility-gap, hwm/visibility-gap.tdm), or that is one
// without its folder (visibility-gap), names that id.
func Near(id string) []string {
	if near := nearByEdits(id); len(near) > 0 || len(id) > 200 {
		return near
	}
	bare := strings.TrimSuffix(strings.TrimSuffix(strings.TrimRight(id, "/"), ".svg"), ".tdm")
	var near []string
	_ = fs.WalkDir(files, "scenarios", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".tdm" {
			return err
		}
		k := strings.TrimSuffix(strings.TrimPrefix(p, "scenarios/"), ".tdm")
		if bare != "" && (bare == k || strings.HasSuffix(bare, "/"+k) || strings.HasSuffix(k, "/"+bare)) && len(near) < 3 {
			near = append(near, k)
		}
		return nil
	})
	return near
}

// nearByEdits is Near by edit distance alone.
func nearByEdits(id string) []string {
	if len(id) > 200 {
		return nil // a name no scenario is close to; and the work stays small
	}
	var known []string
	_ = fs.WalkDir(files, "scenarios", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".tdm" {
			return err
		}
		known = append(known, strings.TrimSuffix(strings.TrimPrefix(p, "scenarios/"), ".tdm"))
		return nil
	})
	return scenario.Near(id, known)
}
