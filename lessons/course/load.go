package course

import (
	"bytes"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
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

	r := &reader{e: e, gl: map[string]Term{}}
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

// strayFence reports each line of n, a paragraph, list or table, that
// starts with ":::": a directive's fence that goldmark took for a line of
// text, as a closing ":::" with nothing open, or one straight after a
// line of text (a paragraph's last line runs on into it), or an opening
// one inside a list. Such a line would show as written.
func (r *reader) strayFence(n ast.Node) bool {
	found := false
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		if n.Type() == ast.TypeBlock {
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				line := seg.Value(r.src.data)
				trimmed := bytes.TrimLeft(line, " \t")
				if !bytes.HasPrefix(trimmed, []byte(":::")) {
					continue
				}
				found = true
				p := r.src.at(seg.Start + len(line) - len(trimmed))
				if len(bytes.TrimSpace(trimmed)) == 3 {
					r.e.at(p, "a \":::\" line with no directive open; a directive ends at the first \":::\" line after its fields")
				} else {
					r.e.at(p, "a directive cannot start here; \":::name\" starts one at the beginning of a line, outside lists and quotes")
				}
			}
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c)
		}
	}
	walk(n)
	return found
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
			if r.strayFence(c) {
				continue
			}
			appendBlock(c, Para{Text: r.rich(c, r.src.data, r.src.at)})
		case *ast.List:
			if r.strayFence(c) {
				continue
			}
			appendBlock(c, r.list(c))
		case *ast.FencedCodeBlock:
			appendBlock(c, r.code(c))
		case *east.Table:
			if sec == nil {
				appendBlock(c, nil)
				continue
			}
			if r.strayFence(c) {
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
