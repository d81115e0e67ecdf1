package prose

import "strings"

// Noun names a row of a table in narration after its key column: "order"
// for order_id, "line item" for line_item_id, "row" for a key without _id.
func Noun(key string) string {
	n := strings.TrimSuffix(key, "_id")
	if n == key || n == "" {
		return "row"
	}
	return ReplaceAll(n, "_", " ")
}

// ReplaceAll is strings.ReplaceAll for an old that is not empty: s with
// every old, from the left and not overlapping, replaced by new. It spares
// the browser module strings.Replace, which is 5 KB of its code.
func ReplaceAll(s, old, new string) string {
	before, after, ok := strings.Cut(s, old)
	if !ok {
		return s
	}
	var b strings.Builder
	for ok {
		b.WriteString(before)
		b.WriteString(new)
		before, after, ok = strings.Cut(after, old)
	}
	b.WriteString(before)
	return b.String()
}

// Rows names a list of keys of rows called n: "order 3", "orders 3, 4",
// "7 orders (1, 2, 3 … 7)", "no orders".
func Rows(n string, keys []string) string {
	switch len(keys) {
	case 0:
		return "no " + Plural(n)
	case 1:
		return n + " " + keys[0]
	}
	if len(keys) <= 6 {
		return Plural(n) + " " + strings.Join(keys, ", ")
	}
	return F("%d %s (%s … %s)", len(keys), Plural(n), strings.Join(keys[:3], ", "), keys[len(keys)-1])
}

// Capital is s with its first letter capitalised, to begin a sentence, when
// that letter is a lower-case ASCII one; any other first character is left
// as it is. (strings.ToUpper would bring Unicode's case tables into the
// browser module, and cutting s[:1] from a multi-byte letter would break it.)
func Capital(s string) string {
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// Plural is the plural of a noun: "orders" for "order"; a noun ending in s
// is left as it is.
func Plural(n string) string {
	if strings.HasSuffix(n, "s") {
		return n
	}
	return n + "s"
}

// IsAre is "is" for one and "are" for more.
func IsAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// WereWas is "was" for one and "were" for more.
func WereWas(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// Count counts n things: "1 window", "3 windows", "0 windows".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return F("%d %s", n, many)
}

// ItThey is "it" for one and "they" for more: the subject ItThem stands
// for as an object.
func ItThey(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}

// ItThem is "it" for one and "them" for more.
func ItThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
