// Package docpage serves the reference documents written for documentation
// authors (GET /docs/scenarios, /docs/embedding): the scenario file format
// and how to embed a scenario, drawn from the Markdown files of package
// docs, so that a visitor of the site can read them without the
// repository. A link between them is rewritten to the other's page, and
// the placeholder https://HOST in their examples becomes the site's own
// address.
package docpage

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/a-h/templ"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/tidemark/tidemark/docs"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
)

// Prefix is where the documents' pages live.
const Prefix = "/docs/"

// Doc is one reference document the site serves.
type Doc struct {
	Name        string // its page: Prefix + Name
	File        string // its file in package docs
	Label       string // how a link to it from another page reads
	Description string // the page's meta description
}

// Docs are the documents the site serves, in the order links list them.
var Docs = []Doc{
	{Name: "scenarios", File: "scenarios.md", Label: "the scenario file format",
		Description: "The reference for Tidemark's scenario files: every command, with an example that runs."},
	{Name: "embedding", File: "embedding.md", Label: "embedding a scenario",
		Description: "How to put a Tidemark scenario in your own documentation: an iframe, a script tag, or a picture."},
}

// Path is the address of d's page.
func (d Doc) Path() string { return Prefix + d.Name }

// placeholder is what the documents write where the site's address goes.
const placeholder = "https://HOST"

// Routes returns a page for each document, with and without a trailing
// slash (a static copy's address of it). A page is a pure function of the
// build and the address of the site it is asked of, so the site keeps it.
func Routes() []web.Page {
	var out []web.Page
	for _, d := range Docs {
		serve := func(r *http.Request) (templ.Component, error) { return page(d, web.SiteURL(r)) }
		out = append(out,
			web.Page{Pattern: "GET " + d.Path(), Render: serve, Reuse: true, Vary: web.OriginHeaders},
			web.Page{Pattern: "GET " + d.Path() + "/{$}", Render: serve, Reuse: true, Vary: web.OriginHeaders})
	}
	return out
}

// Paths are the documents' pages, for a static copy of the site.
func Paths() []string {
	out := make([]string, len(Docs))
	for i, d := range Docs {
		out[i] = d.Path()
	}
	return out
}

// page is d's page for a site at site ("" when the request's address could
// not be trusted: the examples then keep the placeholder).
func page(d Doc, site string) (templ.Component, error) {
	drawn, err := draw(d)
	if err != nil {
		return nil, err
	}
	html := drawn.html
	if site != "" {
		html = strings.ReplaceAll(html, placeholder, site)
		html = strings.ReplaceAll(html, url.QueryEscape(placeholder), url.QueryEscape(site)) // in a link's query
	}
	layout := web.NewLayoutView(drawn.title)
	layout.Description = d.Description
	v := templates.DocView{Layout: layout, HTML: html, Source: "docs/" + d.File}
	for _, o := range Docs {
		if o.Name != d.Name {
			v.Others = append(v.Others, templates.NavLink{Label: o.Label, Href: o.Path()})
		}
	}
	return templates.Doc(v), nil
}

// drawnDoc is a document as HTML, with its title (its first heading).
type drawnDoc struct {
	html, title string
}

// drawn holds each document drawn once, when first asked for: the files
// are the build's, and a Cloudflare Worker starts a program per request,
// most of which never draw one.
var drawn sync.Map // Doc.Name -> func() (drawnDoc, error)

func draw(d Doc) (drawnDoc, error) {
	f, _ := drawn.LoadOrStore(d.Name, sync.OnceValues(func() (drawnDoc, error) { return render(d) }))
	return f.(func() (drawnDoc, error))()
}

// render draws d's Markdown: CommonMark with GitHub's tables, an id on
// every heading made as GitHub makes it (so the documents' own links to
// their sections hold), and a link to another document's file turned into
// a link to its page.
func render(d Doc) (drawnDoc, error) {
	src, err := docs.FS.ReadFile(d.File)
	if err != nil {
		return drawnDoc{}, fmt.Errorf("docpage: %w", err)
	}
	md := goldmark.New(
		goldmark.WithExtensions(extension.Table),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
	doc := md.Parser().Parse(text.NewReader(src))
	title := ""
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if title == "" && n.Level == 1 {
				title = plain(n, src)
			}
		case *ast.Link:
			n.Destination = []byte(rewrite(string(n.Destination)))
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return drawnDoc{}, fmt.Errorf("docpage: %s: %w", d.File, err)
	}
	if title == "" {
		return drawnDoc{}, fmt.Errorf("docpage: %s has no heading to be its title", d.File)
	}
	var b bytes.Buffer
	if err := md.Renderer().Render(&b, src, doc); err != nil {
		return drawnDoc{}, fmt.Errorf("docpage: %s: %w", d.File, err)
	}
	return drawnDoc{html: b.String(), title: title}, nil
}

// rewrite turns a link to a document's file (embedding.md, or
// scenarios.md#knob) into a link to its page; any other it leaves alone.
func rewrite(dest string) string {
	file, frag, _ := strings.Cut(dest, "#")
	for _, d := range Docs {
		if file == d.File || file == "docs/"+d.File {
			if frag != "" {
				return d.Path() + "#" + frag
			}
			return d.Path()
		}
	}
	return dest
}

// plain is the text of a heading, without its marks.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
