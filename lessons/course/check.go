package course

import (
	"slices"
	"strings"
)

// reserved are anchors the pages use for themselves.
var reserved = []string{"glossary", "toc", "progress", "contents", "main", "chapter-nav"}

// checkLesson checks what spans chapters: unique ids, links that land.
func checkLesson(l *Lesson, links []link, e *errs) {
	sections := map[string]Pos{}
	preds := map[string]Pos{}
	plots := map[string]Pos{}
	chapters := map[string]bool{}
	for _, c := range l.Chapters {
		if chapters[c.ID] {
			e.at(Pos{File: c.File}, "chapter id %q is used by two files", c.ID)
		}
		chapters[c.ID] = true
		if c.ID == "glossary" {
			e.at(Pos{File: c.File}, "chapter id %q is the glossary page's address; choose another", c.ID)
		}
		for _, s := range c.Sections {
			if s.ID == "" {
				continue
			}
			if prev, dup := sections[s.ID]; dup {
				e.at(s.Pos, "section id %q is also used at %s", s.ID, prev)
			}
			sections[s.ID] = s.Pos
			if strings.HasPrefix(s.ID, "term-") || strings.HasPrefix(s.ID, "plot-") || strings.HasPrefix(s.ID, "predict-") || slices.Contains(reserved, s.ID) {
				e.at(s.Pos, "section id %q is kept for the page's own anchors; choose another", s.ID)
			}
			for _, b := range s.Blocks {
				switch b := b.(type) {
				case Predict:
					if prev, dup := preds[b.ID]; dup && b.ID != "" {
						e.at(b.Pos, "prediction id %q is also used at %s", b.ID, prev)
					}
					preds[b.ID] = b.Pos
				case Plot:
					if prev, dup := plots[b.ID]; dup {
						e.at(b.Pos, "plot id %q is also used at %s", b.ID, prev)
					}
					plots[b.ID] = b.Pos
				}
			}
		}
	}
	anchors := func(h string) bool {
		id := strings.TrimPrefix(h, "#")
		if _, ok := sections[id]; ok {
			return true
		}
		if p, ok := strings.CutPrefix(id, "plot-"); ok {
			_, ok := plots[p]
			return ok
		}
		if p, ok := strings.CutPrefix(id, "predict-"); ok {
			_, ok := preds[p]
			return ok
		}
		return false
	}
	for _, k := range links {
		if !anchors(k.href) {
			e.at(k.pos, "link %s goes nowhere: it names no section (#id), plot (#plot-id) or prediction (#predict-id) of this lesson", k.href)
		}
	}
}

// eachRich calls f with every piece of text in the lesson and the place of
// the block that holds it.
func eachRich(l *Lesson, f func(Pos, Rich)) {
	f(Pos{File: l.Dir + "/lesson.md"}, l.Lede)
	for _, t := range l.Glossary {
		f(t.Pos, t.Definition)
	}
	for _, c := range l.Chapters {
		for _, s := range c.Sections {
			for _, b := range s.Blocks {
				at := s.Pos
				for _, r := range BlockText(b) {
					f(at, r)
				}
			}
		}
	}
}

// BlockText returns every piece of text in b, in order.
func BlockText(b Block) []Rich {
	switch b := b.(type) {
	case Para:
		return []Rich{b.Text}
	case List:
		return b.Items
	case Note:
		return []Rich{b.Text}
	case Table:
		out := slices.Clone(b.Head)
		for _, r := range b.Rows {
			out = append(out, r...)
		}
		return out
	case Compare:
		return []Rich{b.Sides[0].Text, b.Sides[0].Embed.Caption, b.Sides[1].Text, b.Sides[1].Embed.Caption}
	case Embeds:
		var out []Rich
		for _, e := range b {
			out = append(out, e.Caption)
		}
		return out
	case Checks:
		var out []Rich
		for _, r := range b.Rows {
			out = append(out, r.Expresses, r.Catches, r.Misses, r.Caught.Caption, r.Missed.Caption)
		}
		return out
	case Predict:
		out := []Rich{b.Question, b.Why}
		for _, o := range b.Options {
			out = append(out, o.Label)
		}
		return out
	}
	return nil
}
