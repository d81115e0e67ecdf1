package pages

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/templates/widget"
)

// A copy of the site in static files (see package web/export) cannot draw
// a picture for any query, so it holds the picture of how each bundled
// scenario ends under every combination of its knob values, at a path of
// its own below /picture/: ID/defaults.svg for the defaults, and
// ID/KNOB=VALUE,KNOB=VALUE.svg (the knobs set away from their defaults, by
// name) for the others. The server answers these paths too, with the same
// pictures, so a link to one works on either. A character of a value
// outside letters, digits, . - and _ is written ~XX (its byte in hex).

// staticDefaults is the name of the picture with every knob at its default.
const staticDefaults = "defaults"

// StaticPicture returns the path, below /picture/, of the picture of how
// scenario f ends with knobs (knobs at their defaults may be left out).
func StaticPicture(f *scenario.File, knobs map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(knobs)) {
		if kn := f.Knob(k); kn != nil && knobs[k] != kn.Default {
			parts = append(parts, pathEscape(k)+"="+pathEscape(knobs[k]))
		}
	}
	name := strings.Join(parts, ",")
	if name == "" {
		name = staticDefaults
	}
	return f.ID + "/" + name + ".svg"
}

// staticPictureQuery reads the name of a static picture (the last part of
// its path, without .svg) back into the query of the picture it stands
// for, and reports whether it is one.
func staticPictureQuery(name string) (url.Values, bool) {
	q := url.Values{}
	if name == staticDefaults {
		return q, true
	}
	for part := range strings.SplitSeq(name, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, kok := pathUnescape(k)
		v, vok := pathUnescape(v)
		if !ok || !kok || !vok || k == "" || k == "step" || k == "seed" || k == "truth" {
			return nil, false
		}
		q.Set(k, v)
	}
	return q, true
}

func pathEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('~')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func pathUnescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		var c byte
		for _, h := range []byte{s[i+1], s[i+2]} {
			switch {
			case h >= '0' && h <= '9':
				c = c<<4 | (h - '0')
			case h >= 'A' && h <= 'F':
				c = c<<4 | (h - 'A' + 10)
			default:
				return "", false
			}
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String(), true
}

// staticSnippets makes a static copy's scenario page offer what the copy
// has: the embed page by its directory (no redirect to follow), and the
// picture of how the scenario ends, with a word on what needs a server.
func staticSnippets(e *templates.EmbedSnippets, site, id, title string, f *scenario.File, end engine.Counts) {
	e.IFrame = widget.IFrameTag(site+"/embed/"+id+"/", title)
	pic := site + "/picture/" + StaticPicture(f, nil)
	alt := title + ", how it ends: " + widget.Outcome(end)
	e.Markdown = `![` + widget.MarkdownAlt(alt) + `](` + pic + `)`
	e.Image = widget.ImageTag(pic, alt)
	e.Pictures = "This copy of the site is a set of static files, with a picture of how each scenario ends under every combination of its knobs: " +
		site + "/picture/" + f.ID + "/defaults.svg for the defaults, or the knobs set otherwise in the name, such as " +
		site + "/picture/" + exampleName(f) + ". A picture of any other step, or of a scenario of your own, is drawn by a Tidemark server (make serve), as /picture/" + f.ID + ".svg?step=N."
}

// exampleName is the static picture of f with its first knob away from
// its default, or its defaults' when it has no knob.
func exampleName(f *scenario.File) string {
	for _, k := range f.Knobs {
		for _, v := range k.Values {
			if v != k.Default {
				return StaticPicture(f, map[string]string{k.Name: v})
			}
		}
	}
	return StaticPicture(f, nil)
}

// StaticPictures returns the paths, below /picture/, of the pictures a
// static copy holds: how every bundled scenario ends under every
// combination of its knob values.
func StaticPictures() ([]string, error) {
	all, err := lessons.Scenarios()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sc := range all {
		for _, knobs := range sc.File.KnobSettings() {
			out = append(out, StaticPicture(sc.File, knobs))
		}
	}
	return out, nil
}
