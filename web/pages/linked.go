package pages

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/templates/picture"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/share"
)

// linkedPicturePage answers GET /picture.svg?src=PAYLOAD: the picture of a
// scenario carried in a link (the payload of a #tdm= fragment, see package
// share), with the same query as a bundled scenario's picture (step=,
// knobs, truth=, seed=). It is run as the sandbox's text is: within
// ServerBudget, SimulationDeadline and MaxSimulations. A picture drawn is
// kept by what it was drawn from (the text, the query and the address its
// link starts with), so asking again costs no run; a payload that is
// damaged or too long, or a scenario that does not build, is a picture
// saying so.
func linkedPicturePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	text, err := share.Decode(q.Get("src"))
	if err != nil {
		writeSVG(w, r, http.StatusBadRequest, "no-cache", picture.Message("This picture's scenario cannot be read",
			sentence(err)+" The src= of a picture is what follows #tdm= in a sandbox link."))
		return
	}
	q.Del("src")
	for _, h := range OriginHeaders {
		w.Header().Add("Vary", h)
	}
	sum := sha256.Sum256([]byte(origin(r) + "\n" + q.Encode() + "\n" + text))
	key := hex.EncodeToString(sum[:12])
	if svg, ok := linkedPictures.get(key); ok {
		writePicture(w, r, svg)
		return
	}
	f, err := scenario.Parse(share.Unnamed, []byte(text))
	var (
		t        *engine.Trace
		st       widget.State
		problems []string
	)
	if err == nil {
		ctx, release, herr := holdForDrawing(r.Context(), f)
		if err = herr; err == nil {
			defer release() // until the picture is drawn
			t, st, problems, err = run(ctx, f, q)
		}
	}
	switch {
	case errors.Is(err, web.ErrBusy):
		w.Header().Set("Retry-After", web.RetryAfter)
		writeSVG(w, r, http.StatusServiceUnavailable, "no-store", picture.Message("The server is busy", sentence(err)+" Try again in a few seconds."))
		return
	case err != nil:
		// Bad input, the same for everyone who asks; not kept (a picture
		// drawn is), and revalidated like a page.
		// Not sentence(err): the error starts with a file name.
		why := err.Error()
		if !strings.HasSuffix(why, ".") && !strings.HasSuffix(why, "?") {
			why += "." // not after "did you mean c1?"
		}
		var be *engine.BudgetError
		if errors.As(err, &be) {
			why += " That is the server's limit for a picture; `tidemark run --max-events N` runs any size."
		}
		svg := picture.Message("This scenario could not be drawn", why)
		writeSVG(w, r, http.StatusUnprocessableEntity, "no-cache", svg)
		return
	}
	if !q.Has("step") {
		st.Step = t.Steps()
	}
	link := origin(r) + playPath
	if sq := widget.ShareQuery(t, st.Step, true); sq != "" {
		link += "?" + sq
	}
	link += "#" + share.Key + "=" + r.URL.Query().Get("src")
	beforeDrawing()
	svg := picture.Render(picture.View{Trace: t, Step: st.Step, ShowTruth: st.ShowTruth, Problems: problems, Link: link})
	linkedPictures.put(key, svg)
	writePicture(w, r, svg)
}

// writePicture answers with a drawn picture and its ETag (of its bytes, so
// a new build that draws it differently is a new picture), or with 304
// when the browser's copy has that ETag.
func writePicture(w http.ResponseWriter, r *http.Request, svg string) {
	sum := sha256.Sum256([]byte(svg))
	etag := strconv.Quote(hex.EncodeToString(sum[:8]))
	w.Header().Set("ETag", etag)
	if web.NoneMatch(r.Header.Get("If-None-Match"), etag) {
		w.Header().Set("Cache-Control", PictureCache)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeSVG(w, r, http.StatusOK, PictureCache, svg)
}

// maxLinkedPictureBytes bounds the pictures of linked scenarios kept: a
// few hundred pictures of a few tens of kilobytes.
const maxLinkedPictureBytes = 8 << 20

// linkedPictures keeps drawn pictures of linked scenarios by the hash of
// what they were drawn from, least recently used first out.
var linkedPictures = &svgCache{order: list.New(), byKey: map[string]*list.Element{}}

// svgCache is a bounded cache of pictures.
//
// Invariant: bytes is the sum of the kept pictures' lengths, at most
// maxLinkedPictureBytes.
type svgCache struct {
	mu    sync.Mutex
	bytes int
	order *list.List // of *keptSVG, most recently used first
	byKey map[string]*list.Element
}

type keptSVG struct{ key, svg string }

func (c *svgCache) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return "", false
	}
	c.order.MoveToFront(e)
	return e.Value.(*keptSVG).svg, true
}

func (c *svgCache) put(key, svg string) {
	if len(svg) > maxLinkedPictureBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return
	}
	c.byKey[key] = c.order.PushFront(&keptSVG{key: key, svg: svg})
	c.bytes += len(svg)
	for c.bytes > maxLinkedPictureBytes {
		last := c.order.Back()
		k := last.Value.(*keptSVG)
		c.bytes -= len(k.svg)
		delete(c.byKey, k.key)
		c.order.Remove(last)
	}
}
