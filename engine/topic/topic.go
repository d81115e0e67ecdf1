// Package topic is Tidemark's partitioned log, modelled on Kafka: a topic is
// a set of partitions, each an append-only sequence of records with dense
// offsets; order holds within a partition and nowhere else.
//
// What it models faithfully:
//   - Keyed placement is Kafka's default partitioner: murmur2 of the key's
//     bytes, made positive by clearing the sign bit, modulo the partition
//     count. A key "7" is the bytes of the string "7", as Kafka's
//     StringSerializer writes them.
//   - Adding partitions moves no record; later records of a key go wherever
//     the new count sends them.
//   - Time retention deletes whole segments, judged by the newest timestamp
//     in each segment, and the log start offset moves to the first offset
//     still held.
//   - The idempotent producer: a broker remembers, per partition, the last
//     sequence number each producer id wrote, and drops a retried batch it
//     has already appended.
//
// What it simplifies: one record per batch, no replication or leader
// changes, segments roll by time only, and an expired active segment is
// deleted like any other (Kafka rolls it first, which comes to the same).
package topic

import (
	"math"
	"slices"
	"strconv"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Murmur2 is the 32-bit MurmurHash2 that Kafka's clients use to place keyed
// records: seed 0x9747b28c, multiplier 0x5bd1e995, shift 24, the length mixed
// into the seed, little-endian blocks of four bytes, then the tail and a final
// avalanche. It returns the value as Java's int would hold it.
func Murmur2(data []byte) int32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	n := len(data)
	h := uint32(seed) ^ uint32(n)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch n - i {
	case 3:
		h ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[i])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// Positive clears the sign bit, as Kafka's Utils.toPositive does; it is not
// an absolute value (Math.abs of the smallest int would stay negative).
func Positive(x int32) int32 { return x & 0x7fffffff }

// PartitionFor is the partition Kafka's default partitioner picks for a key
// among n partitions.
func PartitionFor(key string, n int) int {
	return int(Positive(Murmur2([]byte(key))) % int32(n))
}

// Live is the deletion step of a record still in the log.
const Live = math.MaxInt32

// Record is one record of a partition.
//
// A record holds no pointers, so that a log of millions of records costs the
// garbage collector nothing to trace: its key, producer and event id are
// kept once in the topic's tables (Keys, Names, IDs) and named here by
// index; Topic.Key, Topic.Producer and Topic.ID spell them. Its offset is
// its index in the partition's Records, and the producer id and sequence
// number the broker deduplicates by are the partition's to remember (see
// Append), not the record's; nor is the step retention deleted it at
// (Partition.DeletedAt: retention deletes a partition's oldest records
// first, so its moves of the log start say). A record is 64 bytes.
//
// Invariant: KeyID indexes *Keys, ProducerRef indexes Names or is -1, and
// EventRef is 0 or 1 + an index of IDs.
type Record struct {
	_           nocmp.NoCompare
	Time        vtime.Time // the record's timestamp (the producer's clock, or the commit for change capture)
	UpdatedAt   vtime.Time // the event time its payload carries: a captured row's updated_at, or when a producer's event happened
	Amount      int64      // the value its payload carries: a captured row's amount, or a producer's amount=
	LSN         int32      // the source commit position, for change capture: commits, like steps, are bounded by the work budget
	Seq         int32      // the version of the business key it carries (source version, or the producer's intent)
	Num         int32      // the producer's running number for the event, which names it when it has no event id
	Intent      int32      // index of the intended event it carries, or -1
	Step        int32      // the trace step that appended it
	KeyID       int32      // the business key (also the partitioning key when Keyed), as an index of *Keys: the engine's dense id for it
	Src         int32      // 1 + the engine's id of the source row or intended event it copies; 0 (the usual case) when that is KeyID
	ProducerRef int32      // the producer (or the change capture) that sent it, as an index of Names
	EventRef    int32      // the event id the application gave it, as 1 + an index of IDs; 0 for none
	Keyed       bool       // false: a record without a key, placed by the sticky rule
	Delete      bool       // a change event for a row deleted at the source (Debezium's op "d"), from change capture
	Schema      uint8      // the schema version its payload was written with, less one: 0 is version 1 (see SchemaVersion)
}

// SchemaVersion is the version of the schema r's payload was written with,
// as a schema registry numbers them: 1 for the first.
func (r *Record) SchemaVersion() int { return int(r.Schema) + 1 }

// Key is the business key of r, a record of t.
func (t *Topic) Key(r *Record) string { return (*t.Keys)[r.KeyID] }

// Label is how a tool reading the log shows r: its key, or for a record
// without one its event id (which a resend built afresh changes, though the
// key the engine names the event by does not).
func (t *Topic) Label(r *Record) string {
	if !r.Keyed {
		if id := t.ID(r); id != "" {
			return id
		}
	}
	return t.Key(r)
}

// Producer names the producer that sent r, or "" for change capture.
func (t *Topic) Producer(r *Record) string {
	if r.ProducerRef < 0 {
		return ""
	}
	return t.Names[r.ProducerRef]
}

// ID is r's event id: the one the application gave it, else the producer's
// name and the event's running number ("shop-7"), spelled only when asked so
// that a large run does not build a string per record. Change capture
// records have none.
func (t *Topic) ID(r *Record) string {
	switch {
	case r.EventRef > 0:
		return t.IDs[r.EventRef-1]
	case r.Num == 0 || r.ProducerRef < 0:
		return ""
	}
	return t.Names[r.ProducerRef] + "-" + strconv.Itoa(int(r.Num))
}

// DedupID is the id a consumer that drops events it has seen knows r by:
// its event id, or, for a change capture record, which has none, the
// position of the commit that made it, the row's key and the row's version
// ("1003/7/2": lsn 1003, order 7, version 2), which together name one
// change as the position of its own WAL record does in Debezium's
// source.lsn, the field Debezium's documentation points an idempotent
// consumer to. Two records share it exactly when they carry one event, or
// one change of one row.
func (t *Topic) DedupID(r *Record) string {
	if id := t.ID(r); id != "" || r.LSN == 0 {
		return id
	}
	return strconv.Itoa(int(r.LSN)) + "/" + t.Key(r) + "/" + strconv.Itoa(int(r.Seq))
}

// NameRef returns the index of a producer's name in Names, adding it on first use.
func (t *Topic) NameRef(name string) int32 { return intern(&t.Names, &t.nameRefs, name) }

// EventRefOf returns 1 + the index of an event id in IDs, adding it on
// first use, or 0 for the empty id.
func (t *Topic) EventRefOf(id string) int32 {
	if id == "" {
		return 0
	}
	return 1 + intern(&t.IDs, &t.idRefs, id)
}

// intern returns the index of s in *table, appending it (and noting its
// index in *refs) the first time.
func intern(table *[]string, refs *map[string]int32, s string) int32 {
	if i, ok := (*refs)[s]; ok {
		return i
	}
	if *refs == nil {
		*refs = map[string]int32{}
	}
	i := int32(len(*table))
	*table = append(*table, s)
	(*refs)[s] = i
	return i
}

// Segment is a run of consecutive offsets deleted together.
type Segment struct {
	Base, End     int64 // offsets [Base, End)
	First, Newest vtime.Time
}

// StartPoint records that the log start moved to Start at Step.
type StartPoint struct {
	_     nocmp.NoCompare
	Step  int32
	Start int64
}

// Partition is one partition of a topic.
//
// Invariants: offsets are dense; 0 <= Start() <= End(); segments are
// contiguous and cover [Start(), End()).
type Partition struct {
	Topic   string
	ID      int
	Records []Record
	Starts  []StartPoint // every move of the log start, in step order
	segs    []Segment
	last    []lastSeq // per producer id, the last sequence appended; a few entries, searched in order
}

// lastSeq is the last sequence number a producer id appended to a partition.
type lastSeq struct{ pid, seq int32 }

// Name is the partition as Kafka tools print it: orders-1.
func (p *Partition) Name() string { return p.Topic + "-" + strconv.Itoa(p.ID) }

// End is the log end offset: the offset the next record will get.
func (p *Partition) End() int64 { return int64(len(p.Records)) }

// Start is the log start offset: the first offset still held.
func (p *Partition) Start() int64 {
	if len(p.segs) > 0 {
		return p.segs[0].Base
	}
	return p.End()
}

// Topic is a named set of partitions.
//
// Invariant: nameRefs and idRefs give the index of each string of Names and
// IDs, which hold each string once.
type Topic struct {
	Name       string
	Parts      []*Partition
	Retention  vtime.Duration // 0: keep forever
	SegmentDur vtime.Duration // a segment rolls when its first record is this old
	Keys       *[]string      // the text of every key id, which the engine shares among its topics
	Names      []string       // the producers that sent to it, each once
	IDs        []string       // the event ids applications gave its records, each once
	nameRefs   map[string]int32
	idRefs     map[string]int32
}

// New returns a topic with n empty partitions.
func New(name string, n int, retention, segment vtime.Duration) *Topic {
	t := &Topic{Name: name, Retention: retention, SegmentDur: segment, Keys: new([]string)}
	t.Grow(n)
	return t
}

// Grow adds partitions up to n; existing partitions and records stay put.
func (t *Topic) Grow(n int) {
	for len(t.Parts) < n {
		t.Parts = append(t.Parts, &Partition{Topic: t.Name, ID: len(t.Parts)})
	}
}

// Reserve makes room for about n more records spread over the topic's
// partitions, so that appending them does not copy each partition's records
// again and again. Keyed placement is not perfectly even, hence the slack.
func (t *Topic) Reserve(n int) {
	per := n/len(t.Parts) + n/len(t.Parts)/8 + 16
	for _, p := range t.Parts {
		p.Records = slices.Grow(p.Records, per)
	}
}

// maxReserveKeys is the most keys ReserveKeyed places one by one; past it,
// it reserves as Reserve does.
const maxReserveKeys = 1 << 20

// ReserveKeyed makes room for n more records whose keys are drawn evenly
// from the whole numbers 1 to keys, placed by the default partitioner (as a
// traffic line's are). Each partition gets its keys' share of the records
// and a margin of four standard deviations of the draw, so that a large run
// neither copies a partition's records again while appending nor keeps an
// eighth of them unused, as Reserve's even spread must.
func (t *Topic) ReserveKeyed(n, keys int) {
	if keys > maxReserveKeys || keys < 1 {
		t.Reserve(n)
		return
	}
	share := make([]int, len(t.Parts))
	var buf []byte
	for k := 1; k <= keys; k++ {
		buf = strconv.AppendInt(buf[:0], int64(k), 10)
		share[Positive(Murmur2(buf))%int32(len(t.Parts))]++
	}
	for i, p := range t.Parts {
		e := float64(n) * float64(share[i]) / float64(keys)
		p.Records = slices.Grow(p.Records, int(e+4*math.Sqrt(e))+16)
	}
}

// Append adds r at the end of partition p and returns its offset. pid and
// seq are the producer id of the session that sends it and its sequence
// number within the partition. When idempotent is set and the partition
// already holds sequence seq (or a later one) of producer pid, the record
// is a retried duplicate: nothing is appended and dup is true.
func (t *Topic) Append(p int, r Record, pid, seq int32, idempotent bool) (offset int64, dup bool) {
	part := t.Parts[p]
	i := -1 // a loop: slices.IndexFunc is an instance per slice type in the browser module
	for k, l := range part.last {
		if l.pid == pid {
			i = k
			break
		}
	}
	if i < 0 {
		i = len(part.last)
		part.last = append(part.last, lastSeq{pid: pid, seq: seq})
	} else if idempotent && seq <= part.last[i].seq {
		return -1, true
	}
	part.last[i].seq = max(part.last[i].seq, seq)
	offset = part.End()
	part.Records = append(part.Records, r)
	n := len(part.segs)
	if n == 0 || part.segs[n-1].End != offset || t.SegmentDur > 0 && r.Time.Sub(part.segs[n-1].First) > t.SegmentDur {
		part.segs = append(part.segs, Segment{Base: offset, End: offset + 1, First: r.Time, Newest: r.Time})
	} else {
		s := &part.segs[n-1]
		s.End++
		s.Newest = max(s.Newest, r.Time)
	}
	return offset, false
}

// Deleted is one segment retention removed.
type Deleted struct {
	Partition int
	Segment   Segment
}

// Expire deletes every segment whose newest record is older than the
// retention at time now, marking its records deleted at step, and returns
// what it removed in partition order (the partition's Starts say which
// records went at which step).
func (t *Topic) Expire(now vtime.Time, step int32) []Deleted {
	if t.Retention <= 0 {
		return nil
	}
	var out []Deleted
	for _, p := range t.Parts {
		i := 0
		for i < len(p.segs) && now.Sub(p.segs[i].Newest) > t.Retention {
			out = append(out, Deleted{Partition: p.ID, Segment: p.segs[i]})
			i++
		}
		if i > 0 {
			// What slices.Delete(p.segs, 0, i) does, without its instance
			// for segments in the browser module.
			n := copy(p.segs, p.segs[i:])
			clear(p.segs[n:])
			p.segs = p.segs[:n]
			p.Starts = append(p.Starts, StartPoint{Step: step, Start: p.Start()})
		}
	}
	return out
}

// EndAt is the partition's end offset after step n.
func (p *Partition) EndAt(n int32) int64 {
	i, _ := sorted.Search(len(p.Records), func(k int) int {
		r, s := p.Records[k], n
		if r.Step <= s {
			return -1
		}
		return 1
	})
	return int64(i)
}

// DeletedAt is the step retention deleted the record at offset o at, or
// Live while it is held: the first move of the log start past it.
func (p *Partition) DeletedAt(o int64) int32 {
	i, _ := sorted.Search(len(p.Starts), func(k int) int {
		s := p.Starts[k]
		if s.Start <= o {
			return -1
		}
		return 1
	})
	if i == len(p.Starts) {
		return Live
	}
	return p.Starts[i].Step
}

// StartAt is the partition's log start offset after step n.
func (p *Partition) StartAt(n int32) int64 {
	i, _ := sorted.Search(len(p.Starts), func(k int) int {
		s, x := p.Starts[k], n
		if s.Step <= x {
			return -1
		}
		return 1
	})
	if i == 0 {
		return 0
	}
	return p.Starts[i-1].Start
}
