package widget

// Updating the stage in place.
//
// A step used to send the browser the whole stage (tens of kilobytes of
// HTML) to parse and lay out again, although most of it had not changed.
// Now the stage is drawn as before, in full, but with its changing parts
// marked as fragments (builder.fopen), and the session compares the
// fragments of the step drawn with those of the step on screen. What it
// sends is a short list of operations: replace this fragment, or give this
// fragment these children in this order (moving the ones it has, adding
// the new ones from their HTML, dropping the rest). The browser applies them
// (widget.js, patch) and parses only the HTML of what changed.
//
// The drawing stays the single source of truth: the operations are derived
// from two drawings, so a patched stage is the stage a full redraw would
// give. A change the operations cannot say (the stage's own markup outside
// any fragment) sends the whole stage instead.

// drawing is a stage as drawn: its HTML and its fragments, with each
// fragment's children worked out once.
type drawing struct {
	html  string
	frags []frag
	kids  [][]int // kids[i] lists the children of fragment i; kids[len(frags)] the top-level ones
	index map[string]int
}

func newDrawing(html string, frags []frag) *drawing {
	d := &drawing{html: html, frags: frags, kids: make([][]int, len(frags)+1), index: make(map[string]int, len(frags))}
	for i, f := range frags {
		p := f.parent
		if p < 0 {
			p = len(frags)
		}
		d.kids[p] = append(d.kids[p], i)
		d.index[f.key] = i
	}
	return d
}

// span returns the start and end of node i (len(frags) is the whole stage).
func (d *drawing) span(i int) (int, int) {
	if i == len(d.frags) {
		return 0, len(d.html)
	}
	return d.frags[i].start, d.frags[i].end
}

// Op is one change to the stage on screen, as the browser applies it:
//
//	["r", key, html]                   replace fragment key by html
//	["k", key, [keys…], {key: html}]   fragment key (the stage itself when
//	                                   key is "") gets these child fragments
//	                                   in this order: the ones it has move,
//	                                   the others come from their HTML
//
// Operations apply in order; a "k" comes before the changes inside the
// children it keeps.
type Op = []any

// diffStage returns the operations that turn the stage prev into next, or
// whole=true when next must replace it entirely.
func diffStage(prev, next *drawing) (ops []Op, whole bool) {
	if prev == nil {
		return nil, true
	}
	if !diffNode(prev, next, len(prev.frags), len(next.frags), &ops) {
		return nil, true
	}
	return ops, false
}

// diffNode appends the operations that turn node p of prev into node n of
// next, and reports false when only replacing the node will do (which,
// for the stage itself, the caller must do).
func diffNode(prev, next *drawing, p, n int, ops *[]Op) bool {
	ps, pe := prev.span(p)
	ns, ne := next.span(n)
	if prev.html[ps:pe] == next.html[ns:ne] {
		return true
	}
	pk, nk := prev.kids[p], next.kids[n]
	key := ""
	if n < len(next.frags) {
		key = next.frags[n].key
	}
	replace := func() bool {
		if n == len(next.frags) {
			return false
		}
		*ops = append(*ops, Op{"r", key, next.html[ns:ne]})
		return true
	}
	if len(pk) == 0 || len(nk) == 0 {
		return replace()
	}
	// The node's own markup: before its first child, after its last, and
	// between children.
	if prev.html[ps:prev.frags[pk[0]].start] != next.html[ns:next.frags[nk[0]].start] ||
		prev.html[prev.frags[pk[len(pk)-1]].end:pe] != next.html[next.frags[nk[len(nk)-1]].end:ne] {
		return replace()
	}
	sameKeys := len(pk) == len(nk)
	for i := 0; sameKeys && i < len(pk); i++ {
		sameKeys = prev.frags[pk[i]].key == next.frags[nk[i]].key &&
			(i == 0 || prev.html[prev.frags[pk[i-1]].end:prev.frags[pk[i]].start] == next.html[next.frags[nk[i-1]].end:next.frags[nk[i]].start])
	}
	if sameKeys {
		for i := range pk {
			if !diffNode(prev, next, pk[i], nk[i], ops) {
				return replace()
			}
		}
		return true
	}
	// Other children: allowed when nothing but children lies between the
	// first and the last, on both sides.
	if !adjacent(prev, pk) || !adjacent(next, nk) {
		return replace()
	}
	keys := make([]any, len(nk))
	fresh := map[string]any{}
	type kept struct{ p, n int }
	var keep []kept
	for i, c := range nk {
		k := next.frags[c].key
		keys[i] = k
		if j, ok := prev.index[k]; ok && prev.frags[j].parent == parentOf(prev, p) {
			keep = append(keep, kept{j, c})
			continue
		}
		fresh[k] = next.html[next.frags[c].start:next.frags[c].end]
	}
	*ops = append(*ops, Op{"k", key, keys, fresh})
	for _, c := range keep {
		if !diffNode(prev, next, c.p, c.n, ops) {
			// A kept child that changed beyond patching is replaced whole.
			f := next.frags[c.n]
			*ops = append(*ops, Op{"r", f.key, next.html[f.start:f.end]})
		}
	}
	return true
}

// parentOf is the parent index frags record for children of node p.
func parentOf(d *drawing, p int) int {
	if p == len(d.frags) {
		return -1
	}
	return p
}

// adjacent reports whether the children kids follow one another with
// nothing between them.
func adjacent(d *drawing, kids []int) bool {
	for i := 1; i < len(kids); i++ {
		if d.frags[kids[i-1]].end != d.frags[kids[i]].start {
			return false
		}
	}
	return true
}
