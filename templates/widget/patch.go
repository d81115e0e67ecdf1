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
// fragment's children listed once. A step draws one, so it holds no map
// and no slice per fragment: the children of all fragments share one array.
type drawing struct {
	html  string
	frags []frag
	kids  []int32 // the children of every node, node by node
	at    []int32 // node i's children are kids[at[i]:at[i+1]]; node len(frags) is the stage itself
}

func newDrawing(html string, frags []frag) *drawing {
	n := len(frags)
	d := &drawing{html: html, frags: frags, kids: make([]int32, n), at: make([]int32, n+2)}
	for _, f := range frags {
		d.at[parentNode(f.parent, n)+1]++
	}
	for i := 1; i < len(d.at); i++ {
		d.at[i] += d.at[i-1]
	}
	fill := make([]int32, n+1)
	copy(fill, d.at[:n+1])
	for i, f := range frags {
		p := parentNode(f.parent, n)
		d.kids[fill[p]] = int32(i)
		fill[p]++
	}
	return d
}

// opsSize is how much HTML the operations carry.
func opsSize(ops []Op) int {
	size := 0
	for _, op := range ops {
		if h, ok := op[2].(string); ok {
			size += len(h)
			continue
		}
		for _, h := range op[3].(map[string]any) {
			size += len(h.(string))
		}
	}
	return size
}

// parentNode is the node a fragment's parent index names: the stage itself
// for a top-level fragment.
func parentNode(parent, n int) int {
	if parent < 0 {
		return n
	}
	return parent
}

// children returns the children of node i.
func (d *drawing) children(i int) []int32 { return d.kids[d.at[i]:d.at[i+1]] }

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
	pk, nk := prev.children(p), next.children(n)
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
			diffNode(prev, next, int(pk[i]), int(nk[i]), ops)
		}
		return true
	}
	// Other children: allowed when nothing but children lies between the
	// first and the last, on both sides.
	if !adjacent(prev, pk) || !adjacent(next, nk) {
		return replace()
	}
	had := make(map[string]int32, len(pk))
	for _, c := range pk {
		had[prev.frags[c].key] = c
	}
	keys := make([]any, len(nk))
	fresh := map[string]any{}
	type kept struct{ p, n int32 }
	var keep []kept
	for i, c := range nk {
		k := next.frags[c].key
		keys[i] = k
		if j, ok := had[k]; ok {
			keep = append(keep, kept{j, c})
			continue
		}
		fresh[k] = next.html[next.frags[c].start:next.frags[c].end]
	}
	*ops = append(*ops, Op{"k", key, keys, fresh})
	for _, c := range keep {
		diffNode(prev, next, int(c.p), int(c.n), ops) // a child is replaced when it cannot be patched
	}
	return true
}

// adjacent reports whether the children kids follow one another with
// nothing between them.
func adjacent(d *drawing, kids []int32) bool {
	for i := 1; i < len(kids); i++ {
		if d.frags[kids[i-1]].end != d.frags[kids[i]].start {
			return false
		}
	}
	return true
}
