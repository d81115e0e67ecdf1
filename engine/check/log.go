package check

import "github.com/tidemark/tidemark/engine/nocmp"

// LogView is what a team can see of a partitioned log and its consumers:
// the offsets the consumer-group tool prints, the consumers' own logs of
// what each poll fetched and where a reset moved them, and the version
// column of every row the sink wrote, in the order it wrote them.
type LogView struct {
	Partitions []LogPartition
	Reads      []OffsetRange // what polls fetched, in order
	Resets     []OffsetRange // ranges an offset reset jumped over
	Applied    []Applied     // rows written into targets, in arrival order
}

// LogPartition is one line of the consumer-group tool: a group's committed
// offset on a partition beside the partition's log start and end.
type LogPartition struct {
	_                nocmp.NoCompare
	Group, Partition string
	Start, End       int64
	Committed        int64 // -1: nothing committed
}

// OffsetRange is offsets [From, To) of one partition, as a group saw them.
type OffsetRange struct {
	_                nocmp.NoCompare
	Group, Partition string
	From, To         int64
	Why              string
}

// Applied is one row written into a target: its key and the source version
// (or log position) it carries.
type Applied struct {
	_       nocmp.NoCompare
	Key     string
	Version int
}

func isLogCheck(name string) bool {
	return name == "consumer-lag" || name == "version-order" || name == "offset-gap"
}

func init() {
	About["consumer-lag"] = [2]string{
		"a consumer that is paused, slow, stopped or gone: the distance from each partition's end to the committed offset",
		"records skipped by an offset reset or an early commit: once the committed offset has moved past them, lag says nothing is owed",
	}
	About["version-order"] = [2]string{
		"a key whose writes arrived out of version order, as after a partition-count change spread its history over two partitions",
		"out-of-order arrivals a version-aware merge refused, which never reach the table, and keys whose older version was lost rather than late",
	}
	About["offset-gap"] = [2]string{
		"offsets a consumer never fetched: a reset past deleted segments, or past the end with auto.offset.reset=latest",
		"records fetched and then dropped before the write, such as a crash after an early commit, and events that never reached the log",
	}
}

func consumerLag(cfg Config, o Observation) Result {
	if o.Log == nil || len(o.Log.Partitions) == 0 {
		return Result{Status: NotRun, Detail: "no consumer group reads a topic"}
	}
	return consumerLagOf(cfg, o)
}

func versionOrder(o Observation) Result {
	if o.Log == nil || len(o.Log.Applied) == 0 {
		return Result{Status: NotRun, Detail: "no row has been written from the log yet"}
	}
	return versionOrderOf(o)
}

func offsetGap(o Observation) Result {
	if o.Log == nil || len(o.Log.Reads)+len(o.Log.Resets) == 0 {
		return Result{Status: NotRun, Detail: "no consumer has fetched anything yet"}
	}
	return offsetGapOf(o)
}
