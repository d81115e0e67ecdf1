package course

import (
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/lessons"
)

// A lesson is a directory of Markdown files (docs/lessons.md):
//
//	lesson.md      front matter (summary, source), "# Title" and the lede
//	glossary.md    "# Glossary" and one term directive per entry
//	01-id.md …     one file per chapter, in the order of their numbers
//
// Load reads and checks everything that can be checked without running
// the engine; Verify runs it.

// Load reads the lessons named by slugs, in that order, from the
// directories of fsys that bear their names. root is how errors name the
// directory fsys stands for, e.g. "lessons/text". It returns every problem
// it finds, each at its file:line:column.
func Load(fsys fs.FS, root string, slugs []string) ([]*Lesson, error) {
	e := &errs{}
	var out []*Lesson
	seen := map[string]bool{}
	for _, slug := range slugs {
		if !isID(slug) || seen[slug] {
			e.at(Pos{File: root}, "lesson %q: a lesson is registered once, by a name of lower-case letters, digits and hyphens", slug)
			continue
		}
		seen[slug] = true
		if l := loadLesson(fsys, root, slug, e); l != nil {
			out = append(out, l)
		}
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// chapterFile matches a chapter's file name: two or more digits, a hyphen,
// the chapter's id, ".md".
func chapterID(name string) (string, bool) {
	num, id, ok := strings.Cut(strings.TrimSuffix(name, ".md"), "-")
	if !ok || len(num) < 2 || !strings.HasSuffix(name, ".md") || !isID(id) {
		return "", false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return id, true
}

func loadLesson(fsys fs.FS, root, slug string, e *errs) *Lesson {
	dir := path.Join(root, slug)
	l := &Lesson{Slug: slug, Dir: dir}
	entries, err := fs.ReadDir(fsys, slug)
	if err != nil {
		e.at(Pos{File: dir}, "lesson %q is registered but its directory cannot be read: %v", slug, err)
		return nil
	}
	read := func(name string) *source {
		b, err := fs.ReadFile(fsys, path.Join(slug, name))
		if err != nil {
			e.at(Pos{File: path.Join(dir, name)}, "cannot read: %v", err)
			return nil
		}
		return newSource(path.Join(dir, name), b)
	}

	var hasLesson bool
	var chapters []string
	for _, en := range entries {
		name := en.Name()
		switch {
		case en.IsDir() || !strings.HasSuffix(name, ".md"):
			e.at(Pos{File: path.Join(dir, name)}, "a lesson directory holds only .md files: lesson.md, glossary.md and one NN-chapter-id.md per chapter")
		case name == "lesson.md":
			hasLesson = true
		case name == "glossary.md":
		default:
			if _, ok := chapterID(name); !ok {
				e.at(Pos{File: path.Join(dir, name)}, "a chapter's file is named by its place and its id, as 01-the-question.md (the id: lower-case letters, digits and hyphens)")
				continue
			}
			chapters = append(chapters, name)
		}
	}
	if !hasLesson {
		e.at(Pos{File: dir}, "lesson %q has no lesson.md (its title, summary and lede)", slug)
		return nil
	}
	if len(chapters) == 0 {
		e.at(Pos{File: dir}, "lesson %q has no chapters; add a file such as 01-introduction.md", slug)
	}
	slices.Sort(chapters)

	r := &reader{e: e, gl: map[string]Term{}, used: map[string]bool{}}
	if slices.ContainsFunc(entries, func(en fs.DirEntry) bool { return en.Name() == "glossary.md" }) {
		if src := read("glossary.md"); src != nil {
			r.src = src
			l.Glossary = r.glossary()
		}
	}
	if src := read("lesson.md"); src != nil {
		r.src = src
		r.lessonFile(l)
	}
	numbers := map[string]string{}
	for _, name := range chapters {
		src := read(name)
		if src == nil {
			continue
		}
		num, _, _ := strings.Cut(name, "-")
		if prev, dup := numbers[num]; dup {
			e.at(Pos{File: src.name}, "chapter number %s is also %s's; each chapter has a place of its own", num, prev)
		}
		numbers[num] = name
		r.src = src
		id, _ := chapterID(name)
		l.Chapters = append(l.Chapters, r.chapter(id))
	}
	checkLesson(l, r.links, e)
	return l
}

// frontMatter reads "---" lines and "key: value" lines between them at the
// start of a file, and blanks them out of src (keeping its line breaks, so
// positions stay true).
func (r *reader) frontMatter(keys ...string) map[string]string {
	out := map[string]string{}
	data := r.src.data
	if !strings.HasPrefix(string(data), "---\n") && !strings.HasPrefix(string(data), "---\r\n") {
		return out
	}
	lines := strings.SplitAfter(string(data), "\n")
	off := len(lines[0])
	for i := 1; i < len(lines); i++ {
		ln := strings.TrimRight(lines[i], "\r\n")
		p := r.src.at(off)
		if ln == "---" {
			end := off + len(lines[i])
			blank := []byte(string(data[:end]))
			for j, c := range blank {
				if c != '\n' && c != '\r' {
					blank[j] = ' '
				}
			}
			r.src = newSource(r.src.name, append(blank, data[end:]...))
			return out
		}
		k, v, ok := strings.Cut(ln, ":")
		k = strings.TrimSpace(k)
		switch {
		case strings.TrimSpace(ln) == "":
		case !ok || !slices.Contains(keys, k):
			r.e.at(p, "front matter: expected one of %s, as \"%s: …\"", fieldNames(keys...), keys[0])
		case out[k] != "":
			r.e.at(p, "front matter: %s is given twice", k)
		default:
			out[k] = strings.TrimSpace(v)
		}
		off += len(lines[i])
	}
	r.e.at(r.src.at(0), "front matter opened with \"---\" is never closed by another \"---\"")
	return out
}

// lessonFile reads lesson.md: front matter, the title and the lede.
func (r *reader) lessonFile(l *Lesson) {
	fm := r.frontMatter("summary", "source")
	l.Summary, l.Source = fm["summary"], fm["source"]
	if l.Summary == "" {
		r.e.at(Pos{File: r.src.name, Line: 1}, "lesson.md has no summary; start it with front matter: \"---\", \"summary: …\", \"---\"")
	}
	doc := r.src.parse()
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Heading:
			if c.Level != 1 || l.Title != "" {
				r.e.at(r.pos(c), "lesson.md holds one \"# Title\" and the lede; sections belong in chapter files")
				continue
			}
			l.Title = r.blockText(c)
		case *ast.Paragraph:
			if l.Title == "" {
				r.e.at(r.pos(c), "the lede comes after the \"# Title\" line")
			}
			if l.Lede != nil {
				r.e.at(r.pos(c), "the lede is one paragraph")
				continue
			}
			l.Lede = r.rich(c, r.src.data, r.src.at)
		case *ast.HTMLBlock:
			r.comment(c)
		default:
			r.e.at(r.pos(c), "lesson.md holds front matter, \"# Title\" and a one-paragraph lede; found %s", describe(c))
		}
	}
	if l.Title == "" {
		r.e.at(Pos{File: r.src.name, Line: 1}, "lesson.md has no \"# Title\" line")
	}
	if l.Lede == nil {
		r.e.at(Pos{File: r.src.name, Line: 1}, "lesson.md has no lede: a paragraph after the title")
	}
}

// comment accepts an HTML comment, <!-- … -->, as a note to authors, and
// refuses any other HTML.
func (r *reader) comment(h *ast.HTMLBlock) {
	if h.HTMLBlockType != ast.HTMLBlockType2 {
		r.e.at(r.pos(h), "HTML is not allowed in a lesson; only a comment, <!-- … -->, for other authors")
	}
}

// describe names a Markdown block for an error message.
func describe(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Heading:
		return "a level-" + strconv.Itoa(n.Level) + " heading"
	case *ast.Blockquote:
		return "a quote (>)"
	case *ast.ThematicBreak:
		return "a horizontal rule"
	case *ast.CodeBlock:
		return "an indented code block (fence code with ``` instead)"
	case *ast.List:
		return "a list"
	case *ast.Paragraph:
		return "a paragraph"
	case *directiveNode:
		return "a directive"
	case *east.Table:
		return "a table"
	case *ast.FencedCodeBlock:
		return "a code block"
	}
	return strings.ToLower(n.Kind().String())
}

// glossary reads glossary.md: "# Glossary" and term directives. It reads
// every term's name first and then the definitions, which may refer to
// other terms.
func (r *reader) glossary() []Term {
	type entry struct {
		t   Term
		def field
	}
	var entries []entry
	doc := r.src.parse()
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Heading:
			if c.Level != 1 {
				r.e.at(r.pos(c), "glossary.md holds a \"# Glossary\" title and term directives")
			}
		case *ast.HTMLBlock:
			r.comment(c)
		case *directiveNode:
			d, ok := r.directiveOf(c)
			if !ok {
				continue
			}
			if d.name != "term" {
				r.e.at(d.pos, "glossary.md holds term directives; %q belongs in a chapter", d.name)
				continue
			}
			id, ok := r.oneArg(d, "the term's id")
			fs := r.fieldSet(d, d.fields, []string{"name", "definition"}, "name", "definition")
			if !ok {
				continue
			}
			if _, dup := r.gl[id]; dup {
				r.e.at(d.pos, "term %q is defined twice", id)
				continue
			}
			t := Term{ID: id, Name: r.plainField(fs["name"]), Pos: d.pos}
			r.gl[id] = t
			entries = append(entries, entry{t, fs["definition"]})
		default:
			r.e.at(r.pos(c), "glossary.md holds term directives (\":::term id\"); found %s", describe(c))
		}
	}
	out := make([]Term, len(entries))
	for i, en := range entries {
		out[i] = en.t
		out[i].Definition = r.inline(en.def)
		r.gl[en.t.ID] = out[i]
	}
	return out
}

// chapter reads a chapter file: "# Title", then sections.
func (r *reader) chapter(id string) Chapter {
	ch := Chapter{ID: id, File: r.src.name}
	doc := r.src.parse()
	var sec *Section
	var lastTable *Table // a table still waiting for its "Table:" caption
	var lastTablePos Pos
	closeTable := func() {
		if lastTable != nil {
			r.e.at(lastTablePos, "a table needs a caption: a paragraph starting \"Table:\" right after it, after a blank line")
			sec.Blocks = append(sec.Blocks, *lastTable)
			lastTable = nil
		}
	}
	appendBlock := func(n ast.Node, b Block) {
		if sec == nil {
			r.e.at(r.pos(n), "everything in a chapter sits in a section; start with a \"## Section title {#id}\" line")
			return
		}
		sec.Blocks = append(sec.Blocks, b)
	}
	finishSection := func() {
		if sec == nil {
			return
		}
		if len(sec.Blocks) == 0 {
			r.e.at(sec.Pos, "section %q is empty", sec.ID)
		}
		ch.Sections = append(ch.Sections, *sec)
		sec = nil
	}
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if p, ok := c.(*ast.Paragraph); ok && lastTable != nil {
			rich := r.rich(p, r.src.data, r.src.at)
			if cap, ok := strings.CutPrefix(rich.Plain(), "Table:"); ok {
				lastTable.Caption = strings.TrimSpace(cap)
				sec.Blocks = append(sec.Blocks, *lastTable)
				lastTable = nil
				continue
			}
		}
		closeTable()
		switch c := c.(type) {
		case *ast.Heading:
			switch {
			case c.Level == 1:
				if ch.Title != "" || sec != nil || len(ch.Sections) > 0 {
					r.e.at(r.pos(c), "a chapter has one \"# Title\", on its first line")
					continue
				}
				ch.Title = r.blockText(c)
			case c.Level == 2 || c.Level == 3:
				finishSection()
				if ch.Title == "" {
					r.e.at(r.pos(c), "a chapter starts with its \"# Title\" line")
				}
				if c.Level == 3 && len(ch.Sections) == 0 {
					r.e.at(r.pos(c), "a chapter's first section is a main one (##); ### is a part of the ## before it")
				}
				id, seeds := r.sectionAttrs(c)
				sec = &Section{ID: id, Level: c.Level, Title: r.blockText(c), Sources: seeds, Pos: r.pos(c)}
				if sec.Title == "" {
					r.e.at(sec.Pos, "a section heading needs a title")
				}
			default:
				r.e.at(r.pos(c), "headings go down to ### (a part of a section); found a level-%d heading", c.Level)
			}
		case *ast.Paragraph:
			rich := r.rich(c, r.src.data, r.src.at)
			if strings.HasPrefix(rich.Plain(), ":::") {
				r.e.at(r.pos(c), "a \":::\" line with no directive open; a directive starts \":::name\" at the beginning of a line, outside lists and quotes")
				continue
			}
			appendBlock(c, Para{Text: rich})
		case *ast.List:
			appendBlock(c, r.list(c))
		case *ast.FencedCodeBlock:
			appendBlock(c, r.code(c))
		case *east.Table:
			if sec == nil {
				appendBlock(c, nil)
				continue
			}
			lastTable, lastTablePos = r.table(c), r.pos(c)
		case *ast.HTMLBlock:
			r.comment(c)
		case *directiveNode:
			d, ok := r.directiveOf(c)
			if !ok {
				continue
			}
			b, ok := r.block(d)
			if !ok {
				continue
			}
			// Embed directives in a row, with only blank lines between,
			// share one row.
			if e, isEmbed := b.(Embeds); isEmbed && sec != nil && len(sec.Blocks) > 0 {
				if prev, ok := sec.Blocks[len(sec.Blocks)-1].(Embeds); ok && c.PreviousSibling() != nil && c.PreviousSibling().Kind() == kindDirective {
					sec.Blocks[len(sec.Blocks)-1] = append(prev, e...)
					continue
				}
			}
			appendBlock(c, b)
		default:
			r.e.at(r.pos(c), "%s is not part of the lesson format", describe(c))
		}
	}
	closeTable()
	finishSection()
	if ch.Title == "" {
		r.e.at(Pos{File: r.src.name, Line: 1}, "a chapter starts with its \"# Title\" line")
	}
	if len(ch.Sections) == 0 {
		r.e.at(Pos{File: r.src.name, Line: 1}, "chapter %q has no sections", id)
	}
	return ch
}

// list reads a Markdown list whose items are one paragraph each.
func (r *reader) list(l *ast.List) List {
	out := List{Ordered: l.IsOrdered()}
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		c := it.FirstChild()
		if c == nil {
			r.e.at(r.pos(l), "an empty list item")
			continue
		}
		if c.NextSibling() != nil || (c.Kind() != ast.KindParagraph && c.Kind() != ast.KindTextBlock) {
			r.e.at(r.pos(it), "a list item holds one paragraph of text; nested lists and blocks in a list are not part of the lesson format")
			continue
		}
		out.Items = append(out.Items, r.rich(c, r.src.data, r.src.at))
	}
	return out
}

// code reads a fenced code block: ```lang title="Caption".
func (r *reader) code(c *ast.FencedCodeBlock) Code {
	out := Code{}
	if c.Info != nil {
		info := string(c.Info.Segment.Value(r.src.data))
		at := func(off int) Pos { return r.src.at(c.Info.Segment.Start + off) }
		ts, ok := tokens(info, at, r.e)
		if ok {
			for i, t := range ts {
				switch {
				case i == 0 && t.key == "":
					out.Lang = t.value
				case t.key == "title":
					out.Caption = t.value
				default:
					r.e.at(at(t.off), "a code block's first line takes a language and title=\"…\"")
				}
			}
		}
	}
	if out.Caption == "" {
		r.e.at(r.pos(c), "a code block needs a caption: ```%s title=\"What this code does\"", out.Lang)
	}
	var b strings.Builder
	for i := 0; i < c.Lines().Len(); i++ {
		seg := c.Lines().At(i)
		b.Write(seg.Value(r.src.data))
	}
	out.Text = strings.TrimRight(b.String(), "\n")
	return out
}

// table reads a GitHub-style table.
func (r *reader) table(t *east.Table) *Table {
	out := &Table{}
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []Rich
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, r.rich(cell, r.src.data, r.src.at))
		}
		if row.Kind() == east.KindTableHeader {
			out.Head = cells
		} else {
			out.Rows = append(out.Rows, cells)
		}
	}
	return out
}

// block reads a directive that sits in a chapter.
func (r *reader) block(d *directive) (Block, bool) {
	switch d.name {
	case "embed":
		e, ok := r.embedDirective(d)
		return Embeds{e}, ok
	case "predict":
		p, ok := r.predictDirective(d)
		return Predict(p), ok
	case "compare":
		return r.compareDirective(d)
	case "checks":
		return r.checksDirective(d)
	case "plot":
		return r.plotDirective(d)
	case "note":
		return r.noteDirective(d)
	case "term":
		r.e.at(d.pos, "term directives belong in glossary.md")
		return nil, false
	}
	r.e.at(d.pos, "unknown directive %q; expected one of embed, predict, compare, checks, plot, note", d.name)
	return nil, false
}

// fieldSet checks a directive's fields against those it takes, in one
// group, and returns them by name. required fields must be present.
func (r *reader) fieldSet(d *directive, fs []field, allowed []string, required ...string) map[string]field {
	out := map[string]field{}
	for _, f := range fs {
		switch {
		case !slices.Contains(allowed, f.name):
			r.e.at(f.pos, "%s: unknown field %q; expected %s", d.name, f.name, fieldNames(allowed...))
		case f.arg != "":
			r.e.at(f.pos, "%s: field %q takes no word before its colon", d.name, f.name)
		case hasField(out, f.name):
			r.e.at(f.pos, "%s: field %q is given twice", d.name, f.name)
		default:
			out[f.name] = f
		}
	}
	for _, name := range required {
		if _, ok := out[name]; !ok {
			r.e.at(d.pos, "%s: missing field %q", d.name, name)
		}
	}
	return out
}

func hasField(m map[string]field, name string) bool { _, ok := m[name]; return ok }

// noArgs reports arguments given to a directive that takes none.
func (r *reader) noArgs(d *directive) {
	if d.args != "" {
		r.e.at(d.argsAt(0), "%s takes no arguments on its first line; its fields go on the lines below", d.name)
	}
}

// oneArg returns a directive's single id argument.
func (r *reader) oneArg(d *directive, what string) (string, bool) {
	if !isID(d.args) {
		r.e.at(d.argsAt(0), "%s: expected %s after %q (lower-case letters, digits and hyphens); got %q", d.name, what, ":::"+d.name, truncate(d.args, 40))
		return "", false
	}
	return d.args, true
}

func (r *reader) embedDirective(d *directive) (Embed, bool) {
	e, ok := r.spec(d.args, d.argsAt, true)
	fs := r.fieldSet(d, d.fields, []string{"caption"}, "caption")
	e.Caption = r.inline(fs["caption"])
	e.Pos = d.pos
	return e, ok
}

// spec reads "scenario knob=value … [step=N] [focus=check]": which
// scenario to draw, with which settings, where.
func (r *reader) spec(s string, at func(int) Pos, view bool) (Embed, bool) {
	var e Embed
	ts, ok := tokens(s, at, r.e)
	if !ok {
		return e, false
	}
	if len(ts) == 0 || ts[0].key != "" || ts[0].quoted {
		r.e.at(at(0), "expected a scenario id, such as hwm/visibility-gap, then any knob=value settings")
		return e, false
	}
	e.Scenario = ts[0].value
	sc, found := lessons.Lookup(e.Scenario)
	if !found {
		var ids []string
		all, _ := lessons.Scenarios()
		for _, s := range all {
			ids = append(ids, s.ID)
		}
		r.e.at(at(ts[0].off), "unknown scenario %q%s", e.Scenario, suggest(e.Scenario, ids))
		return e, false
	}
	for _, t := range ts[1:] {
		switch {
		case t.key == "":
			r.e.at(at(t.off), "expected knob=value after the scenario id; got %q", truncate(t.value, 30))
			ok = false
		case view && t.key == "step":
			n, err := strconv.Atoi(t.value)
			if err != nil || n < 0 || n > 1_000_000 {
				r.e.at(at(t.off), "step=%s: a step is a whole number, 0 for before the first event", truncate(t.value, 20))
				ok = false
			}
			e.Step = n
		case view && t.key == "focus":
			if !isID(t.value) {
				r.e.at(at(t.off), "focus=%s: name a check the scenario runs, such as gap-scan", truncate(t.value, 30))
				ok = false
			}
			e.Focus = t.value
		default:
			k := sc.File.Knob(t.key)
			if k == nil {
				var names []string
				for _, k := range sc.File.Knobs {
					names = append(names, k.Name)
				}
				extra := ""
				if view {
					extra = " (an embed also takes step= and focus=)"
				}
				r.e.at(at(t.off), "scenario %s has no knob %q; its knobs: %s%s", e.Scenario, t.key, orNone(names), extra)
				ok = false
				continue
			}
			if !slices.Contains(k.Values, t.value) {
				r.e.at(at(t.off), "knob %s of %s cannot be %q; expected %s", t.key, e.Scenario, t.value, strings.Join(k.Values, " | "))
				ok = false
				continue
			}
			if e.Knobs == nil {
				e.Knobs = map[string]string{}
			}
			if _, dup := e.Knobs[t.key]; dup {
				r.e.at(at(t.off), "knob %s is set twice", t.key)
				ok = false
			}
			e.Knobs[t.key] = t.value
		}
	}
	return e, ok
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func (r *reader) noteDirective(d *directive) (Block, bool) {
	ts, ok := tokens(d.args, d.argsAt, r.e)
	if !ok || len(ts) != 1 || ts[0].key != "" {
		r.e.at(d.argsAt(0), "note: expected its label after \":::note\", one word or a quoted phrase, as :::note Simplified")
		return nil, false
	}
	fs := r.fieldSet(d, d.fields, []string{"text"}, "text")
	return Note{Label: ts[0].value, Text: r.inline(fs["text"])}, true
}

// groups splits a directive's fields into the fields before the first
// group field (named start) and one list per group, each starting with
// its group field.
func groups(fs []field, start string) (head []field, gs [][]field) {
	for _, f := range fs {
		switch {
		case f.name == start:
			gs = append(gs, []field{f})
		case len(gs) == 0:
			head = append(head, f)
		default:
			gs[len(gs)-1] = append(gs[len(gs)-1], f)
		}
	}
	return head, gs
}

func (r *reader) predictDirective(d *directive) (Prediction, bool) {
	id, ok := r.oneArg(d, "the prediction's id")
	p := Prediction{ID: id, Pos: d.pos}
	head, opts := groups(d.fields, "option")
	// Fields after the options ("answer", "why") close the last option.
	var tail []field
	for i, g := range opts {
		for j, f := range g {
			if j > 0 && f.name != "claim" {
				tail = append(tail, g[j:]...)
				opts[i] = g[:j]
				break
			}
		}
	}
	fs := r.fieldSet(d, append(head, tail...), []string{"scenario", "question", "answer", "why"}, "scenario", "question", "answer", "why")
	if f, has := fs["scenario"]; has {
		e, good := r.spec(f.value, f.at, false)
		p.Scenario, p.Knobs, ok = e.Scenario, e.Knobs, ok && good
	}
	p.Question, p.Why = r.inline(fs["question"]), r.inline(fs["why"])
	for _, g := range opts {
		f := g[0]
		o := Option{ID: f.arg, Label: r.inline(f), Pos: f.pos}
		if !isID(o.ID) {
			r.e.at(f.pos, "predict: an option is \"option ID: what it says\", with an id such as a or b")
			ok = false
		} else if slices.ContainsFunc(p.Options, func(x Option) bool { return x.ID == o.ID }) {
			r.e.at(f.pos, "predict: option %q is given twice", o.ID)
			ok = false
		}
		if o.Label == nil {
			r.e.at(f.pos, "predict: option %s says nothing", o.ID)
		}
		switch {
		case len(g) == 1:
			r.e.at(f.pos, "predict: option %s needs a claim on the next line, as \"claim: missing 3\"", o.ID)
			ok = false
		case len(g) > 2:
			r.e.at(g[2].pos, "predict: option %s has one claim", o.ID)
			ok = false
		default:
			c, good := r.claim(g[1])
			o.Claim, ok = c, ok && good
		}
		p.Options = append(p.Options, o)
	}
	if len(p.Options) < 2 {
		r.e.at(d.pos, "predict: a prediction offers at least two options (\"option a: …\" with a \"claim:\" each)")
		ok = false
	}
	if f, has := fs["answer"]; has {
		p.Answer = strings.Fields(strings.ReplaceAll(f.value, ",", " "))
		if len(p.Answer) == 0 {
			r.e.at(f.pos, "predict: answer names the options the engine should find true, as \"answer: b\"")
			ok = false
		}
		for _, a := range p.Answer {
			if !slices.ContainsFunc(p.Options, func(o Option) bool { return o.ID == a }) {
				r.e.at(f.pos, "predict: answer %q is not one of the options", a)
				ok = false
			}
		}
	}
	return p, ok
}

// claimKinds are the claims a prediction's option can make, as written.
var claimKinds = []ClaimKind{Clean, Missing, MissingExactly, MissingCount, Present, Duplicated, Stale, CheckStatus}

// claim reads "claim: KIND args [in SCENARIO knob=value…]".
func (r *reader) claim(f field) (Claim, bool) {
	var c Claim
	value := f.value
	rest := ""
	if i := strings.Index(value, " in "); i >= 0 {
		value, rest = f.value[:i], f.value[i+len(" in "):]
	}
	words := strings.Fields(value)
	if len(words) == 0 {
		r.e.at(f.pos, "claim: expected one of %s", kindList())
		return c, false
	}
	c.Kind = ClaimKind(words[0])
	args := words[1:]
	bad := func(format string, a ...any) (Claim, bool) {
		r.e.at(f.at(0), "claim %q: "+format, append([]any{truncate(f.value, 40)}, a...)...)
		return c, false
	}
	keys := func() []string {
		var out []string
		for _, a := range args {
			for _, k := range strings.Split(a, ",") {
				if k != "" {
					out = append(out, k)
				}
			}
		}
		return out
	}
	switch c.Kind {
	case Clean:
		if len(args) > 0 {
			return bad("clean takes nothing after it")
		}
	case Missing, Present, Duplicated, Stale:
		c.Keys = keys()
		if len(c.Keys) == 0 {
			return bad("%s names the keys it is about, as \"%s 3 4\"", c.Kind, c.Kind)
		}
	case MissingExactly:
		c.Keys = keys()
		if len(c.Keys) == 1 && c.Keys[0] == "none" {
			c.Keys = nil
		}
	case MissingCount:
		lo, hi, found := strings.Cut(strings.Join(args, ""), "..")
		n, err1 := strconv.Atoi(lo)
		m, err2 := strconv.Atoi(hi)
		if len(args) != 1 || !found || err1 != nil || n < 0 || hi != "" && (err2 != nil || m < n || m == 0) || hi == "" && n == 0 {
			return bad("missing-count takes a range, as 1..9, or a floor, as 41..")
		}
		c.Min, c.Max = n, m
	case CheckStatus:
		if len(args) != 2 || !isID(args[0]) {
			return bad("check takes a check's name and pass, fail or not-run, as \"check gap-scan fail\"")
		}
		c.Check, c.Status = args[0], check.Status(args[1])
		if !slices.Contains([]check.Status{check.Pass, check.Fail, check.NotRun}, c.Status) {
			return bad("a check ends pass, fail or not-run; got %q", args[1])
		}
	default:
		return bad("unknown claim; expected one of %s", kindList())
	}
	if rest != "" {
		off := len(f.value) - len(rest)
		e, ok := r.spec(rest, func(o int) Pos { return f.at(off + o) }, false)
		if !ok {
			return c, false
		}
		c.Scenario, c.Knobs = e.Scenario, e.Knobs
	}
	return c, true
}

func kindList() string {
	s := make([]string, len(claimKinds))
	for i, k := range claimKinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func (r *reader) compareDirective(d *directive) (Block, bool) {
	r.noArgs(d)
	head, sides := groups(d.fields, "side")
	fs := r.fieldSet(d, head, []string{"caption"}, "caption")
	c := Compare{Caption: r.plainField(fs["caption"])}
	if len(sides) != 2 {
		r.e.at(d.pos, "compare: expected two sides, each starting \"side: its title\"; found %d", len(sides))
		return nil, false
	}
	ok := true
	for i, g := range sides {
		sd := r.fieldSet(d, g[1:], []string{"text", "embed", "caption"}, "text", "embed", "caption")
		s := Side{Title: r.plainField(g[0]), Text: r.inline(sd["text"])}
		if s.Title == "" {
			r.e.at(g[0].pos, "compare: a side needs a title after \"side:\"")
		}
		if f, has := sd["embed"]; has {
			e, good := r.spec(f.value, f.at, true)
			e.Caption, e.Pos = r.inline(sd["caption"]), f.pos
			s.Embed, ok = e, ok && good
		} else {
			ok = false
		}
		c.Sides[i] = s
	}
	return c, ok
}

func (r *reader) checksDirective(d *directive) (Block, bool) {
	r.noArgs(d)
	head, rows := groups(d.fields, "row")
	fs := r.fieldSet(d, head, []string{"caption"}, "caption")
	c := Checks{Caption: r.plainField(fs["caption"])}
	if len(rows) == 0 {
		r.e.at(d.pos, "checks: expected rows, each starting \"row: the check's name\"")
		return nil, false
	}
	ok := true
	for _, g := range rows {
		f := r.fieldSet(d, g[1:], []string{"expresses", "catches", "misses", "caught", "caught-caption", "missed", "missed-caption"}, "expresses", "catches", "misses")
		row := CheckRow{Name: r.plainField(g[0]), Expresses: r.inline(f["expresses"]), Catches: r.inline(f["catches"]), Misses: r.inline(f["misses"]), Pos: g[0].pos}
		for _, side := range []struct {
			spec, caption string
			to            *Embed
		}{{"caught", "caught-caption", &row.Caught}, {"missed", "missed-caption", &row.Missed}} {
			sf, has := f[side.spec]
			if !has {
				if hasField(f, side.caption) {
					r.e.at(f[side.caption].pos, "checks: %s without %s", side.caption, side.spec)
				}
				continue
			}
			e, good := r.spec(sf.value, sf.at, true)
			if e.Focus == "" && good {
				r.e.at(sf.pos, "checks: %s: name the check with focus=, as \"%s: hwm/visibility-gap focus=gap-scan\"", side.spec, side.spec)
				good = false
			}
			if !hasField(f, side.caption) {
				r.e.at(sf.pos, "checks: %s needs %s, saying what the learner sees there", side.spec, side.caption)
				good = false
			}
			e.Caption, e.Pos = r.inline(f[side.caption]), sf.pos
			*side.to, ok = e, ok && good
		}
		if row.Caught.Scenario == "" != (row.Missed.Scenario == "") {
			r.e.at(g[0].pos, "checks: a row shows both where its check notices the fault (caught:) and where it does not (missed:), or neither")
			ok = false
		}
		c.Rows = append(c.Rows, row)
	}
	return c, ok
}

func (r *reader) plotDirective(d *directive) (Block, bool) {
	id, ok := r.oneArg(d, "the plot's id")
	fs := r.fieldSet(d, d.fields, []string{"scenario", "x", "x-title", "x-labels", "series", "series-labels", "caption"}, "scenario", "x", "x-title", "caption")
	p := Plot{ID: id, Caption: r.plainField(fs["caption"]), XTitle: r.plainField(fs["x-title"]), Pos: d.pos}
	sf, has := fs["scenario"]
	if !has {
		return nil, false
	}
	sc, found := lessons.Lookup(strings.TrimSpace(sf.value))
	if !found {
		e, _ := r.spec(sf.value, sf.at, false) // reports the unknown scenario
		_ = e
		return nil, false
	}
	p.Scenario = sc.ID
	knob := func(f field, what string) (string, bool) {
		name := strings.TrimSpace(f.value)
		if sc.File.Knob(name) == nil {
			var names []string
			for _, k := range sc.File.Knobs {
				names = append(names, k.Name)
			}
			r.e.at(f.at(0), "plot: %s: scenario %s has no knob %q; its knobs: %s", what, sc.ID, name, orNone(names))
			return "", false
		}
		return name, true
	}
	labels := func(f field, k string) map[string]string {
		ts, good := tokens(f.value, f.at, r.e)
		if !good {
			return nil
		}
		out := map[string]string{}
		for _, t := range ts {
			if t.key == "" || !slices.Contains(sc.File.Knob(k).Values, t.key) {
				r.e.at(f.at(t.off), "plot: %s: expected value=\"label\" for a value of knob %s (%s)", f.name, k, strings.Join(sc.File.Knob(k).Values, " | "))
				ok = false
				continue
			}
			out[t.key] = t.value
		}
		return out
	}
	if f, has := fs["x"]; has {
		if x, good := knob(f, "x"); good {
			p.X = x
			if lf, has := fs["x-labels"]; has {
				p.XLabels = labels(lf, x)
			}
		} else {
			ok = false
		}
	}
	if f, has := fs["series"]; has {
		if s, good := knob(f, "series"); good {
			p.Series = s
			if lf, has := fs["series-labels"]; has {
				p.Labels = labels(lf, s)
			}
		} else {
			ok = false
		}
	} else if f, has := fs["series-labels"]; has {
		r.e.at(f.pos, "plot: series-labels without series")
	}
	return p, ok
}

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
