package replay

import (
	"fmt"
	"strconv"
	"strings"
)

// LSN is a position in PostgreSQL's write-ahead log, printed X/Y in hex.
type LSN uint64

// ParseLSN reads a pg_lsn as PostgreSQL prints it, such as 0/1528850.
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("expected a log position such as 0/1528850, found %q", s)
	}
	return LSN(h<<32 | l), nil
}

func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint32(l)) }

// Change is one row change test_decoding reported.
type Change struct {
	Schema, Table string
	Op            string            // INSERT, UPDATE or DELETE
	Columns       map[string]string // column name to its value as text; a NULL is absent
}

// DecodedTxn is one transaction as a logical replication slot reports it:
// its changes in order and the position of its commit. The slot reports
// transactions whole, in commit order, and never one that rolled back.
type DecodedTxn struct {
	XID     uint32
	Commit  LSN
	Changes []Change
}

// decodeRows assembles test_decoding's rows (lsn, xid, data), as
// pg_logical_slot_peek_changes returns them with include-xids on, into
// transactions.
func decodeRows(rows [][3]string) ([]DecodedTxn, error) {
	var out []DecodedTxn
	var cur *DecodedTxn
	for _, r := range rows {
		lsnText, xidText, data := r[0], r[1], r[2]
		xid, err := strconv.ParseUint(xidText, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("test_decoding: expected a transaction id, found %q", xidText)
		}
		switch {
		case strings.HasPrefix(data, "BEGIN"):
			out = append(out, DecodedTxn{XID: uint32(xid)})
			cur = &out[len(out)-1]
		case strings.HasPrefix(data, "COMMIT"):
			if cur == nil || cur.XID != uint32(xid) {
				return nil, fmt.Errorf("test_decoding: COMMIT of %d without its BEGIN", xid)
			}
			if cur.Commit, err = ParseLSN(lsnText); err != nil {
				return nil, fmt.Errorf("test_decoding: %v", err)
			}
			cur = nil
		default:
			if cur == nil || cur.XID != uint32(xid) {
				return nil, fmt.Errorf("test_decoding: a change of %d outside its transaction: %q", xid, data)
			}
			c, err := parseChange(data)
			if err != nil {
				return nil, err
			}
			cur.Changes = append(cur.Changes, c)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("test_decoding: transaction %d has no COMMIT", cur.XID)
	}
	return out, nil
}

// parseChange reads one change line of test_decoding:
//
//	table tdm_1.orders: UPDATE: order_id[bigint]:3 updated_at[timestamp without time zone]:'2000-01-01 10:00:00.5' version[integer]:2
//
// Identifiers are quoted as quote_ident would ("Order"), text values in
// single quotes with ” for a quote, and a NULL is the word null.
func parseChange(line string) (Change, error) {
	bad := func(why string) (Change, error) {
		return Change{}, fmt.Errorf("test_decoding: %s in %q", why, line)
	}
	rest, ok := strings.CutPrefix(line, "table ")
	if !ok {
		return bad("expected `table`")
	}
	var c Change
	var err error
	if c.Schema, rest, err = ident(rest); err != nil || !strings.HasPrefix(rest, ".") {
		return bad("expected schema.table")
	}
	if c.Table, rest, err = ident(rest[1:]); err != nil {
		return bad("expected schema.table")
	}
	rest, ok = strings.CutPrefix(rest, ": ")
	if !ok {
		return bad("expected `: ` after the table")
	}
	c.Op, rest, _ = strings.Cut(rest, ": ")
	switch c.Op {
	case "INSERT", "UPDATE", "DELETE":
	default:
		return bad("expected INSERT, UPDATE or DELETE")
	}
	c.Columns = map[string]string{}
	if rest == "(no-tuple-data)" {
		return c, nil
	}
	// An update that changes the key prints the old key first; the new
	// tuple is what the row holds now.
	if _, after, found := strings.Cut(rest, "new-tuple: "); found && strings.HasPrefix(rest, "old-key: ") {
		rest = after
	}
	for rest != "" {
		var name string
		if name, rest, err = ident(rest); err != nil {
			return bad("expected a column name")
		}
		if !strings.HasPrefix(rest, "[") {
			return bad("expected [type] after column " + name)
		}
		end := strings.Index(rest, "]:")
		if end < 0 {
			return bad("expected ]: after the type of column " + name)
		}
		rest = rest[end+2:]
		var value string
		var null bool
		if strings.HasPrefix(rest, "'") {
			var b strings.Builder
			i := 1
			for {
				if i >= len(rest) {
					return bad("a quoted value is not closed")
				}
				if rest[i] == '\'' {
					if i+1 < len(rest) && rest[i+1] == '\'' {
						b.WriteByte('\'')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(rest[i])
				i++
			}
			value, rest = b.String(), rest[i:]
		} else {
			value, rest, _ = strings.Cut(rest, " ")
			rest = " " + rest
			null = value == "null"
		}
		rest = strings.TrimPrefix(rest, " ")
		if !null {
			c.Columns[name] = value
		}
	}
	return c, nil
}

// ident reads an identifier, unquoting one in double quotes.
func ident(s string) (name, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		i := strings.IndexAny(s, ".:[ ")
		if i <= 0 {
			return "", s, fmt.Errorf("expected an identifier")
		}
		return s[:i], s[i:], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), s[i+1:], nil
		}
		b.WriteByte(s[i])
	}
	return "", s, fmt.Errorf("a quoted identifier is not closed")
}
