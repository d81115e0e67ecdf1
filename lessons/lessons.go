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

var (
	loadOnce sync.Once
	catalog  []Scenario
	loadErr  error
)

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
		src, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := scenario.Parse("lessons/"+p, src)
		if err != nil {
			return err
		}
		want := strings.TrimSuffix(strings.TrimPrefix(p, "scenarios/"), ".tdm")
		if f.ID != want {
			return fmt.Errorf("lessons/%s: scenario id %q does not match its path; expected %q", p, f.ID, want)
		}
		out = append(out, Scenario{ID: f.ID, Title: f.Title, About: f.About, Path: p, Source: src, File: f})
		return nil
	})
	slices.SortFunc(out, func(a, b Scenario) int { return strings.Compare(a.ID, b.ID) })
	return out, err
}

// Lookup returns the bundled scenario with id.
func Lookup(id string) (Scenario, bool) {
	all, err := Scenarios()
	if err != nil {
		return Scenario{}, false
	}
	i := slices.IndexFunc(all, func(s Scenario) bool { return s.ID == id })
	if i < 0 {
		return Scenario{}, false
	}
	return all[i], true
}
