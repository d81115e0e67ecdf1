package engine

// Narration is the one sentence that says what an event did and why: the
// sentence it kept, or one its world's History writes when asked.
func (t *Trace) Narration(e *Event) string {
	if e.by == 0 {
		return t.texts[e.b]
	}
	return t.histories[e.by-1].Narration(e)
}

// Narrations returns every event's sentence, in order; a text of the whole
// trace for readers and screen readers.
func (t *Trace) Narrations() []string {
	out := make([]string, len(t.Events))
	for i := range t.Events {
		out[i] = t.Narration(&t.Events[i])
	}
	return out
}
