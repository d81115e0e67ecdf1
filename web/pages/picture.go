package pages

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/templates/picture"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web"
)

// PictureCache is the Cache-Control of a picture: a bundled scenario at a
// given step and settings draws the same picture until the next deploy, and
// a README host (GitHub's image proxy) may keep it for an hour.
const PictureCache = "public, max-age=3600"

// picturePage answers GET /picture/{id}.svg with a standalone SVG of a
// bundled scenario at a step: the same query as the scenario page
// (?step=14&mark=lsn&truth=off&seed=2). Without a step it draws the last
// one, how the scenario ends: a picture of step 0 would show nothing yet.
// The ".svg" ending is optional; it helps hosts that judge a link by its
// name. A bad knob or step draws the defaults and says so in the picture;
// an unknown scenario answers 404 with a small picture saying so.
func picturePage(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSuffix(r.PathValue("id"), ".svg")
	sc, ok := lessons.Lookup(id)
	q := r.URL.Query()
	if i := strings.LastIndexByte(id, '/'); !ok && i > 0 && strings.HasSuffix(r.PathValue("id"), ".svg") {
		// A static copy's name for the picture of how it ends (see StaticPicture).
		if sq, isStatic := staticPictureQuery(id[i+1:]); isStatic {
			if sc, ok = lessons.Lookup(id[:i]); ok {
				id, q = id[:i], sq
			}
		}
	}
	if !ok {
		what := "Tidemark has no scenario named " + strconv.Quote(id) + "."
		if near := lessons.Near(id); len(near) > 0 {
			what += " Did you mean " + strings.Join(near, " or ") + "?"
		}
		writeSVG(w, r, http.StatusNotFound, "no-cache", picture.Message("No such scenario", what+" The home page lists every scenario and its id."))
		return
	}
	t, st, problems, err := run(r.Context(), sc.File, q)
	if errors.Is(err, web.ErrBusy) {
		w.Header().Set("Retry-After", web.RetryAfter)
		writeSVG(w, r, http.StatusServiceUnavailable, "no-store", picture.Message("The server is busy", sentence(err)+" Try again in a few seconds."))
		return
	}
	if err != nil {
		slog.ErrorContext(r.Context(), "pages: draw picture", "id", id, "err", err)
		writeSVG(w, r, http.StatusInternalServerError, "no-cache", picture.Message("This scenario could not be drawn", err.Error()))
		return
	}
	if !q.Has("step") {
		st.Step = t.Steps()
	}
	for i, p := range problems {
		if rest, bad := strings.CutSuffix(p, widget.NotAStep); bad {
			// The picture's default is the last step, as without step=.
			problems[i] = rest + " is not a step number; drawing the last step"
			st.Step = t.Steps()
		}
	}
	link := origin(r) + "/scenarios/" + id
	if sq := widget.ShareQuery(t, st.Step, true); sq != "" {
		link += "?" + sq
	}
	if !st.ShowTruth {
		link += "&truth=off"
	}
	// The picture is kept by shared caches (PictureCache), and its link is
	// built from these headers: a cache must keep one picture per value.
	for _, h := range OriginHeaders {
		w.Header().Add("Vary", h)
	}
	writeSVG(w, r, http.StatusOK, PictureCache, picture.Render(picture.View{
		Trace: t, Step: st.Step, ShowTruth: st.ShowTruth, Problems: problems, Link: link, Original: st.Original,
	}))
}

func writeSVG(w http.ResponseWriter, r *http.Request, status int, cache, svg string) {
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Cache-Control", cache)
	h.Set("Content-Length", strconv.Itoa(len(svg)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(svg))
	}
}

// sentence makes an error's text a sentence: capitalised, with a full stop.
func sentence(err error) string {
	s := err.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

// origin returns the address links that leave the site start with (see
// web.SiteURL).
func origin(r *http.Request) string { return web.SiteURL(r) }

// snippets returns the three ways to put scenario id, with t's knobs, at
// step in someone else's documentation.
