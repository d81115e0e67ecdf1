package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/topic"
)

// Log is the partitioned log at the end of a run: every partition with its
// log start and end and each group's committed offset and lag, every
// record ever appended with its partition and offset, and every stop of a
// consumer on an exception.
type Log struct {
	Partitions []Partition `json:"partitions"`
	Records    []Record    `json:"records"`
	Stops      []Stop      `json:"stops,omitempty"`  // consumers stopped by an exception, in step order
	Closes     []Close     `json:"closes,omitempty"` // static members' consumers closed without leaving their groups, in step order
}

// Partition is one partition at the end of the run.
type Partition struct {
	Topic     string        `json:"topic"`
	Partition int           `json:"partition"`
	LogStart  int64         `json:"log_start"`
	End       int64         `json:"end"`
	Groups    []GroupOffset `json:"groups"`
}

// GroupOffset is a group's committed offset on a partition (-1: none) and its lag.
type GroupOffset struct {
	Group     string `json:"group"`
	Committed int64  `json:"committed"`
	Lag       int64  `json:"lag"`
}

// Record is one record the log held, with the steps it was appended and
// (when retention removed it) deleted at.
type Record struct {
	Topic     string `json:"topic"`
	Partition int    `json:"partition"`
	Offset    int64  `json:"offset"`
	Key       string `json:"key"`
	Version   int32  `json:"version"`
	Schema    int    `json:"schema,omitempty"` // the schema version it was written with, when a line names one (1 is left out)
	LSN       int64  `json:"lsn,omitempty"`
	EventID   string `json:"event_id,omitempty"`
	Producer  string `json:"producer"`
	At        string `json:"at"`
	Step      int32  `json:"step"`
	Deleted   int32  `json:"deleted_step,omitempty"`
}

// Stop is a member of a consumer group whose consumer stopped at Step on
// an exception its code does not handle, and ran again at Until (a
// deploy, an operator's restart or a re-snapshot), or, with Until 0, was
// still stopped at the end of the run.
type Stop struct {
	Group     string `json:"group"`
	Member    string `json:"member"`
	Step      int32  `json:"step"`
	Exception string `json:"exception"`
	Until     int32  `json:"until_step,omitempty"`
}

// stopsOf pairs each stop of a member in the log's groups with the point
// it ran again, if any.
func stopsOf(lt *logs.Trace) []Stop {
	var out []Stop
	for _, g := range lt.Groups {
		for i, s := range g.Stops {
			if s.Why == 0 {
				continue
			}
			st := Stop{Group: g.Name, Member: g.Members[s.Member], Step: s.Step, Exception: logs.Stops[s.Why]}
			for _, next := range g.Stops[i+1:] {
				if next.Member == s.Member {
					if next.Why == 0 {
						st.Until = next.Step
					}
					break
				}
			}
			out = append(out, st)
		}
	}
	slices.SortStableFunc(out, func(a, b Stop) int { return int(a.Step - b.Step) })
	return out
}

// Close is a static member's consumer closing at Step without leaving its
// group, and what ended that: at Until, 0 while it lasted to the end, the
// member started again keeping its partitions, or, when Removed, its
// session timed out and the coordinator removed it.
type Close struct {
	Group   string `json:"group"`
	Member  string `json:"member"`
	Step    int32  `json:"step"`
	Until   int32  `json:"until_step,omitempty"`
	Removed bool   `json:"removed,omitempty"`
}

// closesOf lists the closes of static members in the log's groups.
func closesOf(lt *logs.Trace) []Close {
	var out []Close
	for _, g := range lt.Groups {
		for _, c := range g.Closes {
			out = append(out, Close{Group: g.Name, Member: g.Members[c.Member], Step: c.Step, Until: c.Until, Removed: c.Removed})
		}
	}
	slices.SortStableFunc(out, func(a, b Close) int { return int(a.Step - b.Step) })
	return out
}

func buildLog(t *engine.Trace) *Log {
	lt := logs.Of(t)
	if lt == nil {
		return nil
	}
	l := &Log{Partitions: []Partition{}, Records: []Record{}}
	for _, s := range lt.LogAt(t.Steps()) {
		p := Partition{Topic: s.Topic, Partition: s.Partition, LogStart: s.Start, End: s.End, Groups: []GroupOffset{}}
		for _, g := range s.Groups {
			p.Groups = append(p.Groups, GroupOffset{Group: g.Group, Committed: g.Committed, Lag: g.Lag})
		}
		l.Partitions = append(l.Partitions, p)
		h := lt.TopicNamed(s.Topic)
		part := h.Parts[s.Partition]
		for o, r := range lt.RecordsAt(s.Topic, s.Partition, t.Steps()) {
			rec := Record{Topic: s.Topic, Partition: s.Partition, Offset: int64(o), Key: h.Key(&r), Version: r.Seq, LSN: int64(r.LSN),
				EventID: h.ID(&r), Producer: h.Producer(&r), At: r.Time.String(), Step: r.Step}
			if d := part.DeletedAt(int64(o)); d != topic.Live {
				rec.Deleted = d
			}
			if r.Schema > 0 {
				rec.Schema = r.SchemaVersion()
			}
			l.Records = append(l.Records, rec)
		}
	}
	l.Stops = stopsOf(lt)
	l.Closes = closesOf(lt)
	return l
}

// logText writes the LOG section: one line per partition, its offsets and
// the keys it holds.
func logText(b *strings.Builder, t *engine.Trace) {
	lt := logs.Of(t)
	if lt == nil {
		return
	}
	head := "\nLOG (records as offset:key, later versions as vN, a deleted row's change event marked ✕, offsets retention deleted in brackets"
	if lt.Schemas {
		head += ", records of a later schema version N marked ·sN"
	}
	b.WriteString(head + ")\n")
	for _, s := range lt.LogAt(t.Steps()) {
		var gs []string
		for _, g := range s.Groups {
			c := "none"
			if g.Committed >= 0 {
				c = fmt.Sprint(g.Committed)
			}
			gs = append(gs, fmt.Sprintf("%s committed %s lag %d", g.Group, c, g.Lag))
		}
		fmt.Fprintf(b, "  %s-%d  log start %d  end %d  %s\n", s.Topic, s.Partition, s.Start, s.End, strings.Join(gs, "; "))
		var recs []string
		h := lt.TopicNamed(s.Topic)
		for o, r := range lt.RecordsAt(s.Topic, s.Partition, t.Steps()) {
			x := fmt.Sprintf("%d:%s", o, h.Label(&r))
			if r.Seq > 1 {
				x += fmt.Sprintf("v%d", r.Seq)
			}
			if r.Delete {
				x += "✕"
			}
			if r.Schema > 0 {
				x += fmt.Sprintf("·s%d", r.SchemaVersion())
			}
			if int64(o) < s.Start {
				x = "(" + x + ")"
			}
			recs = append(recs, x)
		}
		if len(recs) > 0 {
			if len(recs) > 24 {
				recs = append(recs[:12], fmt.Sprintf("… %d more …", len(recs)-24), strings.Join(recs[len(recs)-12:], " "))
			}
			fmt.Fprintf(b, "      %s\n", strings.Join(recs, " "))
		}
	}
	for _, st := range stopsOf(lt) {
		until := "still stopped at the end"
		if st.Until > 0 {
			until = fmt.Sprintf("running again from step %d", st.Until)
		}
		fmt.Fprintf(b, "  %s/%s stopped at step %d on %s; %s\n", st.Group, st.Member, st.Step, st.Exception, until)
	}
	for _, c := range closesOf(lt) {
		until := "still closed, and still a member, at the end"
		switch {
		case c.Removed:
			until = fmt.Sprintf("removed by its session timeout at step %d", c.Until)
		case c.Until > 0:
			until = fmt.Sprintf("running again, with its partitions, from step %d", c.Until)
		}
		fmt.Fprintf(b, "  %s/%s closed at step %d without leaving (a static member); %s\n", c.Group, c.Member, c.Step, until)
	}
}
