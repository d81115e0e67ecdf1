//go:build !js

package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/chromedp/chromedp"

	"github.com/tidemark/tidemark/web"
)

// TestProbeSeesCSPViolation makes sure the harness would notice a page that
// breaks the site's CSP, so that "no page problems" in other tests means
// something.
func TestProbeSeesCSPViolation(t *testing.T) {
	bad := web.Page{
		Pattern: "GET /bad",
		Render: func(*http.Request) (templ.Component, error) {
			return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
				_, err := io.WriteString(w, `<!DOCTYPE html><html lang="en"><title>bad</title><p style="color: red">x</p><script>document.title = "ran";</script></html>`)
				return err
			}), nil
		},
	}
	base := startSite(t, web.Options{Pages: []web.Page{bad}})
	ctx := newBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/bad")); err != nil {
		t.Fatal(err)
	}
	if title := eval[string](t, ctx, `document.title`); title != "bad" {
		t.Errorf("inline script ran despite the CSP (title %q)", title)
	}
	problems := strings.Join(pageProblems(t, ctx), "\n")
	for _, want := range []string{"script-src", "style-src"} {
		if !strings.Contains(problems, want) {
			t.Errorf("probe did not report a %s violation; it saw:\n%s", want, problems)
		}
	}
}
