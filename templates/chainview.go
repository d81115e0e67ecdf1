package templates

import "strconv"

// ChainView is the chain builder's page: a form with a fieldset per hop,
// each hop's guarantee and the chain's, and what the engine found when it
// ran the chain.
type ChainView struct {
	Layout LayoutView
	// Error, when set, says why the address's choices could not be read;
	// the form then shows the strong chain.
	Error string
	Hops  []ChainHopView
	// Guarantee is the chain's guarantee by name, and Effect what it lets
	// happen to rows.
	Guarantee, Effect string
	// Level is the guarantee as a word for the page's styles and tests:
	// "exactly-once", "at-least-once", "at-most-once" or "none".
	Level string
	// Weakest names the hops that set the chain's guarantee.
	Weakest []string
	// Absorbed says, one sentence each, which repeats a later hop absorbs.
	Absorbed []string
	// Reads says what the report sees.
	Reads string
	Run   ChainRunView
	// Link is the address of this chain; SandboxLink plays its scenario
	// step by step in the sandbox.
	Link, SandboxLink string
	// Scenario is the generated scenario's text.
	Scenario string
	// Orders is how many orders the shop means to send.
	Orders int
}

// ChainHopView is one hop of the form.
type ChainHopView struct {
	ID, Name, Does, Failure string
	Options                 []ChainOptionView
	// Guarantee is the chosen option's own guarantee, by name.
	Guarantee string
	// Level is Guarantee as a word (see ChainView.Level).
	Level string
	// Weakest marks a hop that sets the chain's guarantee.
	Weakest bool
	// AbsorbedBy names the hop that absorbs this hop's repeats, if any.
	AbsorbedBy string
}

// absorbed is what follows the hop's guarantee when a later hop absorbs
// its repeats, punctuated to follow it directly: ", its repeats absorbed by
// the sink".
func (h ChainHopView) absorbed() string {
	if h.AbsorbedBy == "" {
		return ""
	}
	return ", its repeats absorbed by the " + h.AbsorbedBy
}

// weakestLabel marks a weakest hop, one of n.
func weakestLabel(n int) string {
	if n > 1 {
		return "— one of the weakest hops"
	}
	return "— the weakest hop"
}

// ChainOptionView is one option of a hop.
type ChainOptionView struct {
	ID, Name, How string
	// Guarantee is the option's own guarantee, by name.
	Guarantee string
	Checked   bool
	// Loses, Repeats and Absorbs let the page's script work the chain's
	// guarantee out before the form is sent.
	Loses, Repeats bool
	Absorbs        string
	// Reads is what readers may see, for the serving table's options.
	Reads string
}

// ChainRunView is what the engine found.
type ChainRunView struct {
	// Shows is the guarantee the run demonstrates, by name.
	Shows string
	// Confirmed is true when the run shows exactly the claimed guarantee.
	Confirmed bool
	// Missing and Doubled list the first runs of consecutive keys of
	// each ("36–88", Doubled as "41–47 ×2"); MissingMore and DoubledMore
	// count the keys of the runs not listed, MissingCount and
	// DoubledCount all of them.
	Missing, Doubled           []string
	MissingMore, DoubledMore   int
	MissingCount, DoubledCount int
	// Torn is true when the report read a state the table never held.
	Torn  bool
	Steps int
}

// joinAnd joins words as a list in prose: "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	out := ""
	for i, w := range words[:len(words)-1] {
		if i > 0 {
			out += ", "
		}
		out += w
	}
	return out + " and " + words[len(words)-1]
}

// listFirst lists the runs of keys shown, with how many keys more there
// are.
func listFirst(shown []string, more int) string {
	out := joinComma(shown)
	if more > 0 {
		out += " and " + strconv.Itoa(more) + " more"
	}
	return out
}

func joinComma(words []string) string {
	out := ""
	for i, w := range words {
		if i > 0 {
			out += ", "
		}
		out += w
	}
	return out
}

// ordersAre counts orders for a sentence: "1 order is", "3 orders are".
func ordersAre(n int) string {
	if n == 1 {
		return "1 order is"
	}
	return strconv.Itoa(n) + " orders are"
}
