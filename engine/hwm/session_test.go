package hwm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

const sessionHead = `scenario test/sessions "One transaction at a time in a session"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
`

// TestSessionRunsOneTransactionAtATime: a transaction that begins in a
// session whose transaction is still open stops the run with an error at its
// line, as PostgreSQL has no way to run it; one that begins once the first
// has ended runs.
func TestSessionRunsOneTransactionAtATime(t *testing.T) {
	f, err := scenario.Parse("s.tdm", []byte(sessionHead+`txn A begin=10:00:00 commit=10:00:05 session=s1 insert order_id=1
txn B begin=10:00:01 commit=10:00:02 session=s1 insert order_id=2
`))
	require.NoError(t, err)
	_, err = engine.Run(f, nil, 1, worlds.All())
	var se *scenario.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "s.tdm:6:5: B begins at 10:00:01 in session s1, where A is still open: a PostgreSQL session runs one transaction at a time; give B a session of its own with session=, or end A first", err.Error())

	tr := runText(t, "s.tdm", sessionHead+`begin A at=10:00:00 session=s1
insert A order_id=1 at=10:00:00
commit A at=10:00:02
txn B begin=10:00:02 commit=10:00:03 session=s1 insert order_id=2
run extract at=10:00:04
`)
	assert.Empty(t, tr.Final().Missing)
}

// TestWorkloadSessionsNeverOverlap: a workload whose transactions outlast
// the gap between them takes its sessions in turn, passes over busy ones and
// opens more when all are busy, so no session ever has two transactions
// open; the sessions it opened are reused once free.
func TestWorkloadSessionsNeverOverlap(t *testing.T) {
	for _, line := range []string{
		"workload orders txns=20 from=10:00:00 every=500ms duration=0s..2s rows=2 sessions=3 rollback=10 prefix=W",
		"workload orders txns=200 from=10:00:00 every=10ms duration=0s..1s sessions=2",
		"workload orders txns=50 from=10:00:00 every=1s duration=100ms sessions=4",
		// Two workloads share the names s1, s2, …: the one with fewer
		// sessions opens s3 and on while the other's are busy.
		"workload orders txns=100 from=10:00:00 every=10ms duration=500ms sessions=2\nworkload orders txns=100 from=10:00:00.005 every=10ms duration=500ms sessions=8 prefix=V",
	} {
		tr := runText(t, "w.tdm", sessionHead+line+"\nrun extract at=11:00:00\n")
		h := hwm.Of(tr)
		open := map[string]string{}
		sessions := map[string]bool{}
		for i := range tr.Events {
			e := &tr.Events[i]
			switch e.Kind {
			case engine.KindBegin, engine.KindCommit, engine.KindRollback:
			default:
				continue
			}
			var rec *hwm.TxnRecord
			for j := range h.Txns {
				if h.Txns[j].Name == tr.Actor(e) {
					rec = &h.Txns[j]
				}
			}
			require.NotNil(t, rec)
			if e.Kind == engine.KindBegin {
				require.Empty(t, open[rec.Session], "%s: %s begins in session %s while %s is open", line, rec.Name, rec.Session, open[rec.Session])
				open[rec.Session] = rec.Name
				sessions[rec.Session] = true
			} else {
				delete(open, rec.Session)
			}
		}
		assert.Empty(t, tr.Final().Missing, line)
		if line[len(line)-10:] == "sessions=2" {
			// Transactions last up to 1 s and begin every 10 ms: about a
			// hundred are open at once, far more than two, yet sessions are
			// reused rather than one opened per transaction.
			assert.Greater(t, len(sessions), 2, line)
			assert.Less(t, len(sessions), 150, line)
		}
		if line[len(line)-10:] == "sessions=4" {
			assert.Len(t, sessions, 4, "transactions that never overlap take the four sessions in turn")
		}
	}
}
