package course

import "github.com/tidemark/tidemark/engine/check"

// HighWaterMark returns lesson one: the stored position that decides what a
// pipeline reads again after a restart. It was written from the source
// document seeds/000_552daed8dd809f4c.txt; the facts and the order of its
// sections carry over, the wording is Tidemark's own.
func HighWaterMark() *Lesson {
	return &Lesson{
		Slug:    "high-water-mark",
		Title:   "The high-water mark",
		Source:  "seeds/000_552daed8dd809f4c.txt",
		Summary: "One stored value decides what a pipeline reads again after a restart. A log position makes that decision exact; a timestamp only estimates it, and the estimate silently drops rows.",
		Lede:    "A pipeline that reads in increments keeps one small value — \"done up to here\" — and that value alone decides what it reads after a restart. A position in a log can honestly say it. A timestamp can only estimate it, and the difference is where rows disappear without a trace.",
		Sections: []Section{
			{ID: "question", Level: 2, Title: "The question", Sources: []string{"The question"}, Blocks: []Block{
				Para("Your pipeline crashes and starts again. Where does it pick up, and is that starting point an exact place in the source's history or only an estimate of one?"),
				Para("Everything in this lesson follows from the answer. We start from the people who read the output, because designing outward from the source is the habit that causes this class of bug."),
			}},
			{ID: "who", Level: 2, Title: "Who needs this", Sources: []string{"Who needs this"}, Blocks: []Block{
				Para("Anyone who reads a table that is built a little at a time. Whether yesterday's rows are all there, or some are quietly absent, comes down to the stored mark — and nobody reading the table can tell which case they are in. Missing rows look exactly like rows that never existed."),
			}},
			{ID: "unit", Level: 2, Title: "What one row is", Sources: []string{"What one row is"}, Blocks: []Block{
				Para("The thing we track is not a row but a place in an ordered sequence: an {offset} in a partitioned log, a {lsn} in a database's {wal}, a binlog file name and position, or — the weakest member of the family — a timestamp."),
				Para("A value works as a {hwm} only if the statement \"everything at or before this point has been processed\" is both true and something you can check. Keep that test in mind: the rest of the lesson applies it to each candidate."),
			}},
			{ID: "obvious", Level: 2, Title: "The obvious build", Sources: []string{"The obvious build"}, Blocks: []Block{
				Para("Keep a one-row table holding `last_processed_timestamp`. On every run, select the source rows whose `updated_at` is strictly greater than it, write them, and store the new value."),
				Para("There are good reasons this is the default almost everywhere: it takes an afternoon to build, a person can read the stored value, and nearly every source has a modification time. Most incremental pipelines in production work this way."),
			}},
			{ID: "breaks", Level: 2, Title: "How the obvious build breaks", Sources: []string{"Why it breaks", "How it breaks with real data"}, Blocks: []Block{
				Para("Here is the core failure in one sentence of times. A transaction starts at 10:00:00 and stamps its row with that time, but it does not commit until 10:00:04. A pipeline run at 10:00:02 reads everything up to its own `now()` and stores 10:00:02. When the row finally becomes visible, its timestamp is already behind the stored value, so no later run will ever select it. Nothing errors. The pipeline's own numbers are consistent. The row is simply gone ({mvcc} is why it was invisible at 10:00:02)."),
				Para("With real data there are six distinct ways this design loses or repeats rows. Each has its own scenario you can open and play:"),
				List{Items: []string{
					"**Late commits.** The case above: a row's timestamp is taken when its transaction starts, it becomes visible only at commit, and the mark moves past it in between.",
					"**Two clocks.** If the mark comes from the reader's clock and that clock runs ahead, rows the source stamps a moment \"in the past\" fall behind it. If the mark comes from the source's clock instead, every correction to that clock — including a step backwards — becomes the pipeline's problem too ({clock-skew}).",
					"**Ties.** Two rows carry exactly the mark's value. Strictly-greater drops the one that arrives later; greater-or-equal reads both again, which is only harmless if the write is an {idempotent-write}.",
					"**Backdated updates.** A correction job, a migration or a partner's re-sent file writes a timestamp from the past. The changed row lands below the mark by construction and never gets read.",
					"**Advancing too early.** The mark is stored before the output is committed. The process dies between the two steps, and a range is recorded as done while its output does not exist.",
					"**Racing workers.** Two workers update the same mark at once. The stored value is whichever write came last, not what was actually processed.",
				}},
				Embeds{
					{Scenario: "hwm/clock-skew", Caption: "Two clocks: the reader's clock runs two seconds ahead, and order 3 falls behind the mark."},
					{Scenario: "hwm/ties", Caption: "Ties: orders 2 and 3 share the mark's exact value; strictly-greater never returns order 3."},
					{Scenario: "hwm/backdated-update", Caption: "A backdated correction to order 2 lands below the mark, so the target keeps the old amount."},
					{Scenario: "hwm/racing-workers", Caption: "Racing workers: the slower worker stores an older position over a newer one, and the mark moves backwards."},
				},
				Predict{
					ID:       "ties-gte",
					Question: "In the ties scenario, switch the comparison to greater-or-equal (`>=`) and keep appending rows to the target. What does the target end up with?",
					Scenario: "hwm/ties", Knobs: map[string]string{"predicate": "gte", "sink": "append"},
					Options: []Option{
						{ID: "a", Label: "Every order exactly once", Claim: Claim{Kind: Clean}},
						{ID: "b", Label: "Order 3 is still missing", Claim: Claim{Kind: Missing, Keys: []string{"3"}}},
						{ID: "c", Label: "Nothing missing, but order 2 appears twice", Claim: Claim{Kind: Duplicated, Keys: []string{"2"}}},
					},
					Why: "Greater-or-equal reads the row that sits exactly on the mark a second time. That rescues order 3, but an append writes order 2 again; only a merge on the key would absorb the repeat.",
				},
			}},
			{ID: "happening", Level: 2, Title: "What is actually happening", Sources: []string{"What is actually happening"}, Blocks: []Block{
				Para("A {hwm} is a claim: everything up to this position has been processed, and the output of that processing is durable. The claim is true only if the position and the output are committed together, or at least in the right order ({transaction})."),
				List{Items: []string{
					"**A log position is exact.** A partition offset, an {lsn}, a binlog file and position: each names one record, is handed out by the source in commit order, only ever grows, and can be read again from.",
					"**A timestamp approximates that order.** It is taken at some moment during a transaction and becomes visible at another. It need not be unique, it need not grow when writers run concurrently, and it can go backwards when someone corrects a clock. It tells you roughly when, never exactly where.",
					"**More digits do not help.** The gap that loses rows lies between the moment a timestamp is assigned and the moment the row becomes visible. Microseconds, nanoseconds — no resolution closes it ({isolation-level}).",
					"**Moving the mark is the pipeline's commit point.** Store it in the same transaction as the output if you can. If you cannot, store it after the output is durable, so a crash makes the pipeline repeat work rather than skip it ({checkpoint}).",
					"**That order is the delivery guarantee.** Advance after the write and you get {at-least-once}: duplicates after a restart, which an idempotent write absorbs. Advance before and you get {at-most-once}: gaps, which nothing absorbs. There is no third ordering.",
				}},
			}},
			{ID: "visibility-gap", Level: 3, Title: "A position, and the gap a timestamp cannot close", Sources: []string{"A position, and the gap a timestamp cannot close"}, Blocks: []Block{
				Note{Label: "Source-specific", Text: "How wide the gap is depends on the source. In a row store under {mvcc} it is as long as the longest transaction. In an append-only log that assigns positions at commit it is practically zero. Behind a SaaS API with a \"modified since\" filter it is whatever the vendor made it, and they rarely say. The failure is the same everywhere; only the width of the window changes."},
				Para("People call two different things a watermark, and only one of them can carry the claim we need. A log position points to a record inside an order the source itself produced. A timestamp is a value written into a column partway through a transaction. The first can say \"everything up to here is done\". The second cannot — and the reason is behind a very large share of silently missing rows, so it is worth going through slowly."),
				Para("In a log, positions are handed out at commit, with no holes and always increasing. If the stored mark is 1047, every record up to 1047 is processed and 1048 comes next. No clock is involved and nothing is ambiguous."),
				Para("With timestamps, `updated_at` is set when the statement runs, and the row becomes visible when its transaction commits — two different moments. The scenario below replays four transactions. Follow order 3: stamped 10:00:00, committed at 10:00:04. The run at 10:00:02 sees orders 1 and 2, stores 10:00:02 and finishes. When order 3 becomes visible its stamp is already below the mark, so a strictly-greater query will never return it. The source has the row, the target does not, both systems did exactly what they promise, and no error is raised anywhere."),
				Table{
					Caption: "The four transactions, and what a run at 10:00:02 can see (the stored mark becomes 10:00:02, read from the reader's clock)",
					Head:    []string{"Transaction", "updated_at set", "Committed (visible)", "Seen by the 10:00:02 run?"},
					Rows: [][]string{
						{"T1 (order 1)", "10:00:00", "10:00:00", "yes"},
						{"T2 (order 2)", "10:00:01", "10:00:01", "yes"},
						{"T3 (order 3)", "10:00:00", "10:00:04", "no — and its stamp is below the mark for good"},
						{"T4 (order 4)", "10:00:02", "10:00:06", "no — and its stamp is below the mark for good"},
					},
				},
				Predict{
					ID:       "order-3",
					Question: "Before you play it: the pipeline runs again at 10:00:07 and 10:00:09. Will order 3 reach the target?",
					Scenario: "hwm/visibility-gap",
					Options: []Option{
						{ID: "a", Label: "Yes — a later run picks it up once it is committed", Claim: Claim{Kind: Present, Keys: []string{"3"}}},
						{ID: "b", Label: "No — it is missing from the target at the end", Claim: Claim{Kind: Missing, Keys: []string{"3"}}},
					},
					Why: "Every later run asks for rows stamped after the stored mark. Order 3's stamp, 10:00:00, is already behind it when the row becomes visible, so no query ever returns it.",
				},
				Embeds{
					{Scenario: "hwm/visibility-gap", Caption: "The four transactions as a timeline, with a timestamp mark."},
					{Scenario: "hwm/visibility-gap", Knobs: map[string]string{"mark": "lsn"}, Caption: "The same transactions with a log-position mark: nothing is lost."},
				},
				List{Items: []string{
					"The loss comes from the gap between assigning a timestamp and the commit becoming visible. It is not a precision problem and not anyone's bug.",
					"The gap grows with transaction length and with concurrency, so this failure gets worse exactly when the system gets busier ({isolation-level}).",
					"Which clock you trust is a separate decision: the reader's clock skips rows the source stamped in its own recent past; the source's clock brings along every correction and every replica's drift ({clock-skew}).",
					"A row rewritten with an old timestamp lands below the mark by design and no future run sees it.",
					"Ties are a smaller, separate problem: strictly-greater drops rows equal to the mark; greater-or-equal reads them again, which is safe only with an {idempotent-write}.",
				}},
				Predict{
					ID:       "gte-fix",
					Question: "Someone proposes the fix \"use `>=` instead of `>`\". With that change, which orders are still missing at the end?",
					Scenario: "hwm/visibility-gap", Knobs: map[string]string{"predicate": "gte"},
					Options: []Option{
						{ID: "a", Label: "None — `>=` catches everything", Claim: Claim{Kind: MissingExactly}},
						{ID: "b", Label: "Order 3 only", Claim: Claim{Kind: MissingExactly, Keys: []string{"3"}}},
						{ID: "c", Label: "Order 4 only", Claim: Claim{Kind: MissingExactly, Keys: []string{"4"}}},
						{ID: "d", Label: "Orders 3 and 4, as before", Claim: Claim{Kind: MissingExactly, Keys: []string{"3", "4"}}},
					},
					Why: "Order 4 is stamped exactly 10:00:02, the stored mark, so `>=` picks it up. Order 3 is stamped 10:00:00, strictly below the mark: changing the comparison cannot reach it.",
				},
			}},
			{ID: "storing", Level: 2, Title: "Storing the mark: the order decides gaps or duplicates", Sources: []string{"Storing the mark, and the order that decides gaps or duplicates", "When to advance the mark"}, Blocks: []Block{
				Para("Once you have picked what the mark holds, one decision remains, and it has no middle ground: is the mark stored before or after the output is durable? Storing it first gives {at-most-once} — a crash between the two steps leaves a range marked done and empty. Storing it after gives {at-least-once} — a crash makes the next run redo a range that was already written."),
				Para("Storing after is the right default, and it is right only because an {idempotent-write} turns the repeat into a no-op. This is where this lesson and idempotency become one subject: if the write cannot replace its own slice, both orders lose correctness, in opposite directions, and there is no safe choice left."),
				Para("Better than either, where the storage allows it: commit the output and the mark in one {transaction}, so the two facts can never disagree. That works when the mark lives in the same database as the target. It does not work when the output is files in object storage and the mark is a row somewhere else; then \"store after, write idempotently\" is the honest way to rebuild the same guarantee."),
				Compare{
					Caption: "The same crash, between the two durable steps, with the mark stored first or last",
					Sides: [2]Side{
						{Title: "Store the mark, then write", Text: "Read from the mark, work out the new mark, store it, then write the output. If the process dies after the store and before the write finishes, the range counts as processed while its output does not exist — and since the mark says it is done, no run will look at it again.",
							Embed: Embed{Scenario: "hwm/advance-order", Knobs: map[string]string{"advance": "before"}, Caption: "Mark first: orders 3 and 4 are recorded as done and never written."}},
						{Title: "Write, then store the mark — or both at once", Text: "Publish the output atomically, make sure it is durable, then store the new mark. A crash between the two means the next run repeats a range it already wrote; an overwrite of the interval or a merge on the business key absorbs that without a trace. If mark and output share a transaction, commit them together and the question goes away.",
							Embed: Embed{Scenario: "hwm/advance-order", Knobs: map[string]string{"advance": "after"}, Caption: "Write first: the restart writes orders 3 and 4 again — duplicates, because this target appends."}},
					},
				},
				Predict{
					ID:       "advance-merge",
					Question: "Keep the write-first order but make the target a merge on `order_id` instead of an append. After the crash and restart, what does the target hold?",
					Scenario: "hwm/advance-order", Knobs: map[string]string{"advance": "after", "sink": "merge"},
					Options: []Option{
						{ID: "a", Label: "Every order exactly once", Claim: Claim{Kind: Clean}},
						{ID: "b", Label: "Orders 3 and 4 twice", Claim: Claim{Kind: Duplicated, Keys: []string{"3", "4"}}},
						{ID: "c", Label: "Orders 3 and 4 missing", Claim: Claim{Kind: Missing, Keys: []string{"3", "4"}}},
					},
					Why: "The restart reads orders 3 and 4 again, as write-first always does after such a crash. The merge finds them already present and replaces them in place, so the repeat leaves no trace.",
				},
				Para("The two orders are the choice between at-most-once and at-least-once, and their consequences are not symmetric. A duplicate can be detected, and with an idempotent write it costs nothing. A gap cannot be seen from inside the pipeline, and once the source's {retention} has moved past it, it cannot be repaired. Pick the failure you can absorb over the one you cannot see: that is the entire argument."),
			}},
			{ID: "one-transaction", Level: 3, Title: "One transaction for the output and the mark", Sources: []string{"Advancing a mark in the same transaction as the output"}, Blocks: []Block{
				Para("When the target and the mark live in the same database, one transaction can write the output and move the mark. The sketch below is ours; read the comments for the three defences it carries."),
				Code{Lang: "sql", Caption: "Writing a range and moving the mark together", Text: `-- Target and mark share one database, so they commit or fail together.
BEGIN;

-- 1. Bound the range by log position, not by a clock.
MERGE INTO fct_orders AS t
USING (SELECT * FROM stg_orders
        WHERE source_lsn >  :mark_read      -- where this run started
          AND source_lsn <= :mark_next) AS s -- where it stops
   ON t.order_id = s.order_id
 WHEN MATCHED     THEN UPDATE SET amount_minor = s.amount_minor
 WHEN NOT MATCHED THEN INSERT (order_id, order_date, customer_id, amount_minor)
                       VALUES (s.order_id, s.order_date, s.customer_id, s.amount_minor);

-- 2. Move the mark only if it still holds what this run read,
-- 3. and only forwards.
UPDATE pipeline_state
   SET last_mark = :mark_next, changed_at = now()
 WHERE pipeline  = 'orders'
   AND last_mark = :mark_read
   AND :mark_next > last_mark;

-- If that touched no row, another run got there first: roll back.
-- Its output was idempotent, so nothing is lost by giving up.
COMMIT;`},
				Para("First, the range is bounded by a log position, so there is no visibility gap to fall into. Second, the mark update only applies if the stored value is still the one this run started from — a {cas} — which turns a silently lost update into a conflict the run can see and give up on. Third, the mark can only move forward, so neither a clock correction nor a late worker can quietly rewind what the pipeline claims about itself."),
				Embeds{
					{Scenario: "hwm/advance-order", Knobs: map[string]string{"advance": "atomic"}, Caption: "Output and mark in one transaction: the crash takes both or neither."},
					{Scenario: "hwm/racing-workers", Knobs: map[string]string{"cas": "on"}, Caption: "The conditional update turns the race into a conflict the slower worker gives up on."},
				},
				Predict{
					ID:       "race-monotonic",
					Question: "Two workers share one mark and the conditional update is off. Which check notices that something went wrong?",
					Scenario: "hwm/racing-workers", Knobs: map[string]string{"cas": "off"},
					Options: []Option{
						{ID: "a", Label: "Monotonicity — the mark never decreases", Claim: Claim{Kind: CheckStatus, Check: "monotonicity", Status: check.Fail}},
						{ID: "b", Label: "Gap scan — holes in the ids", Claim: Claim{Kind: CheckStatus, Check: "gap-scan", Status: check.Fail}},
						{ID: "c", Label: "Uniqueness — one row per key", Claim: Claim{Kind: CheckStatus, Check: "uniqueness", Status: check.Fail}},
					},
					Why: "The slower worker stores an older position over a newer one, so the stored mark goes down. No row is lost here — the merge and the next run repair the data — which is exactly why only a check on the mark itself sees it.",
				},
			}},
			{ID: "checks", Level: 2, Title: "Checking a mark you cannot see inside", Sources: []string{"Checking a mark you cannot see inside", "Detecting a mark that is lying"}, Blocks: []Block{
				Note{Label: "Simplified", Text: "The gap scan assumes ids handed out densely with no rollbacks. Some sources work that way and many do not: sequences that cache blocks per session, distributed id schemes and rolled-back inserts all leave legitimate holes. Where the assumption holds the scan is a strong signal; where it does not, it raises false alarms."},
				Para("What makes this failure hard is that it leaves no evidence inside the pipeline. A skipped row was never read, never counted, never written, so every number the pipeline keeps about itself agrees with the row not existing. Detection has to come from outside: from the source, or from how the mark itself behaves over time."),
				Para("The six checks below are the practical set. Notice how few of them look at data: two watch the mark, one compares with the source, one looks at the overlap, and only one inspects the target's rows. That is the point — watch the state, because data cannot tell you what is missing from it."),
				Para("The \"still misses\" column matters more than usual, because these checks fail together. A {reconciliation} that counts the source using the same timestamp column and window as the pipeline reproduces the gap exactly and reports agreement. Count against something the source works out independently — its own totals, row counts over a primary-key range — or the check confirms the bug instead of finding it."),
				Checks{
					Caption: "Six checks on a mark: each runs once where it notices the fault and once where it stays quiet about a real one",
					Rows: []CheckRow{
						{Name: "Monotonicity", Expresses: "The mark only ever moves forward, unless someone resets it on purpose.", Catches: "Clock corrections, two workers racing on one mark, a state table restored from backup.", Misses: "A mark that moves forward too far — which is the failure that actually loses rows.",
							Caught: Embed{Scenario: "hwm/racing-workers", Focus: "monotonicity", Caption: "The slower worker moves the mark backwards."},
							Missed: Embed{Scenario: "hwm/visibility-gap", Focus: "monotonicity", Caption: "The mark only rises, while orders 3 and 4 are lost."}},
						{Name: "Rate of change", Expresses: "Every run moves the mark, and by a believable amount.", Catches: "A stalled source, a stuck consumer, one suspiciously large jump after an outage.", Misses: "Small, steady losses: a few rows short per run looks like a normal advance ({pipeline-metrics}).",
							Caught: Embed{Scenario: "hwm/stalled-mark", Focus: "rate-of-change", Caption: "Nothing commits for thirty seconds; a mark that stores the newest timestamp it has read stops moving, and the check sees the stall."},
							Missed: Embed{Scenario: "hwm/stalled-mark", Knobs: map[string]string{"mark": "timestamp"}, Focus: "rate-of-change", Caption: "A mark taken from the reader's clock keeps its usual pace through the stall, and the four orders stamped while they waited are lost."}},
						{Name: "Source count per closed interval", Expresses: "The target is complete against the system of record.", Catches: "Rows lost to the visibility gap, backdated updates, any range the mark skipped.", Misses: "Everything, if the source count filters on the same timestamp column the pipeline used — it then reproduces the gap and agrees with it.",
							Caught: Embed{Scenario: "hwm/reconciliation", Focus: "reconciliation-independent", Caption: "Counted independently over a closed interval: two orders short."},
							Missed: Embed{Scenario: "hwm/reconciliation", Focus: "reconciliation-same-column", Caption: "Counted with the pipeline's own column and window: it agrees with the bug."}},
						{Name: "Advance with zero rows", Expresses: "A run moved the mark without finding anything.", Catches: "The fingerprint of a skip, and of a filter that has quietly stopped matching.", Misses: "Genuinely quiet periods look identical; it needs the source count to be conclusive.",
							Caught: Embed{Scenario: "hwm/visibility-gap", Focus: "zero-advance", Caption: "The 10:00:07 run moves the mark and writes nothing."},
							Missed: Embed{Scenario: "hwm/visibility-gap", Knobs: map[string]string{"predicate": "gte"}, Focus: "zero-advance", Caption: "With `>=` every run finds something, yet order 3 is still lost."}},
						{Name: "Overlap re-read finds known rows", Expresses: "The {overlap-window} is doing its job.", Catches: "A rising number of late commits — an early warning that the window is too narrow.", Misses: "Rows that arrive later than the overlap reaches, which are exactly the ones being lost.",
							Caught: Embed{Scenario: "hwm/overlap-window", Focus: "overlap-reread", Caption: "The overlap re-reads rows that committed late."},
							Missed: Embed{Scenario: "hwm/overlap-window", Knobs: map[string]string{"overlap": "0s"}, Focus: "overlap-reread", Caption: "With no overlap the check has nothing to look at, and seven orders are lost."}},
						{Name: "Primary-key gap scan", Expresses: "Densely allocated ids should have no holes in the target.", Catches: "Missing rows directly, with no clock involved, where the source uses a dense sequence.", Misses: "Sources without sequential keys, legitimate holes from deletes or rollbacks, and losses after the highest id the target holds.",
							Caught: Embed{Scenario: "hwm/visibility-gap", Focus: "gap-scan", Caption: "Ids 3 and 4 are missing between 1 and 5."},
							Missed: Embed{Scenario: "hwm/clock-skew", Knobs: map[string]string{"jump": "-5s"}, Focus: "gap-scan", Caption: "Orders 3, 4 and 5 are lost, but they are the newest ids, so there is no hole to find."}},
					},
				},
				Para("The last check is the one teams forget. Where the source hands out ids densely, a gap scan finds missing rows without touching a timestamp, which makes it the only check here that the clock behaviour behind the loss cannot fool."),
				Predict{
					ID:       "which-check",
					Question: "In the four-transaction scenario, orders 3 and 4 are lost. Which check stays green?",
					Scenario: "hwm/visibility-gap",
					Options: []Option{
						{ID: "a", Label: "Monotonicity", Claim: Claim{Kind: CheckStatus, Check: "monotonicity", Status: check.Pass}},
						{ID: "b", Label: "Source count over a closed interval", Claim: Claim{Kind: CheckStatus, Check: "reconciliation-independent", Status: check.Pass}},
						{ID: "c", Label: "Primary-key gap scan", Claim: Claim{Kind: CheckStatus, Check: "gap-scan", Status: check.Pass}},
					},
					Why: "The mark never goes backwards here — it goes too far forward — so monotonicity has nothing to object to. The independent count and the gap scan both look outside the pipeline's own bookkeeping and find the two orders.",
				},
			}},
			{ID: "build", Level: 2, Title: "How to build it", Sources: []string{"How to build it"}, Blocks: []Block{
				Para("In order of importance:"),
				List{Ordered: true, Items: []string{
					"**Use a log position whenever the source offers one.** Reading a database's change log by position ({cdc}) turns \"did we miss anything?\" into arithmetic.",
					"**Where only a timestamp exists, never rely on it alone.** Read with an {overlap-window} behind the mark, make the write idempotent so the overlap costs only compute, and reconcile counts against the source for {closed-period|closed periods}.",
					"**Store the mark only after the output is durably published**, and in the same transaction as the output where the storage allows it.",
					"**Keep one mark per partition, shard or table, not one for everything.** A single global mark serialises the pipeline and lets one slow source hold back all the others ({partition}).",
					"**Write down what the mark means, and keep it resettable.** \"`updated_at` from the source, set at statement start, visible at commit\" is one sentence that prevents a whole family of incidents. Recovering from a mark that skipped ahead means moving it back, which requires knowing its earlier values, who changed it and that moving it is safe.",
					"**Prefer processing by interval over a stored mark** when the data has a usable event-time partition: no state to store, no race, nothing to reset.",
				}},
				Embeds{
					{Scenario: "hwm/overlap-window", Caption: "An overlap sized for ordinary commits rescues them, but not the long batch job."},
					{Scenario: "hwm/per-partition-marks", Caption: "One global mark for two tables: a run that reads only one of them moves the mark for both."},
				},
				Predict{
					ID:       "per-table",
					Question: "Give each table its own mark. After the EU half of a run fails, is order 2 still lost?",
					Scenario: "hwm/per-partition-marks", Knobs: map[string]string{"marks": "per-table"},
					Options: []Option{
						{ID: "a", Label: "Yes, it is still missing", Claim: Claim{Kind: Missing, Keys: []string{"2"}}},
						{ID: "b", Label: "No, a later run picks it up", Claim: Claim{Kind: Present, Keys: []string{"2"}}},
					},
					Why: "With a mark per table, the EU mark stays where EU rows were last read; the next run that reads the EU table starts from there and finds order 2.",
				},
			}},
			{ID: "promises", Level: 2, Title: "What the mark promises", Sources: []string{"What this actually promises"}, Blocks: []Block{
				Para("Saying which guarantee you do not have is worth more than naming the one you do: everything downstream inherits the weakest promise in the chain."),
				List{Items: []string{
					"**A log-position mark promises exact resumption.** Every record after the position will be delivered; records before it are not delivered again unless you rewind. Together with an idempotent write, replaying a range affects the output once. That is a promise about the output write, not about reading, and it relies on the computation giving the same result each time.",
					"**A timestamp mark promises only this:** rows whose timestamp was above the stored value at the moment of reading were considered. It does not promise that every row belonging to that range was visible then, and it never can.",
					"**Storing after the write promises no gaps and allows duplicates. Storing before promises no duplicates and allows gaps.** Only a shared transaction gives both.",
					"**A per-partition mark promises resumption per partition.** It says nothing about order across partitions, so a pipeline-wide \"processed through\" built from many marks is true only as their minimum.",
					"**{retention|Retention} limits all of it.** A position can be replayed only while the log still holds it; after that the mark points at data the source has thrown away.",
				}},
				Predict{
					ID:       "promise-both",
					Question: "The target appends, and the pipeline dies between storing the mark and writing the output (or the other way round). Which order keeps every order exactly once through the crash?",
					Scenario: "hwm/advance-order",
					Options: []Option{
						{ID: "a", Label: "Store the mark first, then write", Claim: Claim{Kind: Clean, Scenario: "hwm/advance-order", Knobs: map[string]string{"advance": "before"}}},
						{ID: "b", Label: "Write first, then store the mark", Claim: Claim{Kind: Clean, Scenario: "hwm/advance-order", Knobs: map[string]string{"advance": "after"}}},
						{ID: "c", Label: "Write the output and store the mark in one transaction", Claim: Claim{Kind: Clean, Scenario: "hwm/advance-order", Knobs: map[string]string{"advance": "atomic"}}},
					},
					Why: "Mark first promises no duplicates and loses orders 3 and 4; write first promises no gaps and, with an appending target, writes them twice. Only the shared transaction makes the crash take both steps or neither, so the promise covers both.",
				},
			}},
			{ID: "trust", Level: 2, Title: "Can I trust it?", Sources: []string{"Can I trust it?"}, Blocks: []Block{
				Para("A green run proves that code executed. The four parts below are what tell you the data is right."),
			}},
			{ID: "trust-check", Level: 3, Title: "The check that would catch this", Sources: []string{"The check that would catch this"}, Blocks: []Block{
				List{Items: []string{
					"The standing check is a per-interval {reconciliation} against the source for closed periods: ask the source how many records fall in a window and compare with what the target holds. It is the only check that can find a mark that skipped rows, because that failure leaves nothing to see inside the pipeline.",
					"It is blind to periods that are still open, and to any case where the source count itself is computed with the timestamp semantics that lost the rows: a source query filtered on `updated_at` reproduces the gap faithfully.",
					"The second check worth having is monotonicity: the mark must never move backwards except through an explicit reset, and an alert fires when it does. A mark that goes down is either a clock correction or two writers racing, and both need a human to look.",
				}},
				Embeds{{Scenario: "hwm/reconciliation", Knobs: map[string]string{"until": "10:00:30"}, Focus: "reconciliation-independent", Caption: "While the interval is still open, the independent count cannot say anything yet."}},
				Predict{
					ID:       "open-interval",
					Question: "The independent count covers an interval that has not closed yet (up to 10:00:30). What does it report about the two lost orders?",
					Scenario: "hwm/reconciliation", Knobs: map[string]string{"until": "10:00:30"},
					Options: []Option{
						{ID: "a", Label: "It fails: two orders short", Claim: Claim{Kind: CheckStatus, Check: "reconciliation-independent", Status: check.Fail}},
						{ID: "b", Label: "It passes", Claim: Claim{Kind: CheckStatus, Check: "reconciliation-independent", Status: check.Pass}},
						{ID: "c", Label: "It has not run: the period is still open", Claim: Claim{Kind: CheckStatus, Check: "reconciliation-independent", Status: check.NotRun}},
					},
					Why: "Counting an open interval would compare against rows that are still arriving, so the check waits for the interval to close. Until then, the loss is invisible even to the one check that can find it.",
				},
			}},
			{ID: "freshness", Level: 3, Title: "Freshness", Sources: []string{"Freshness"}, Blocks: []Block{
				List{Items: []string{
					"The mark is the lower edge of what each run reads, so {watermark-lag} — how far the mark trails the source's newest record — is the most direct freshness signal a pipeline has.",
					"An overlap window pays a fixed amount of repeated reading in exchange for tolerating the commit-visibility gap. It does not delay the output; it widens the input.",
					"A mark that stops moving is an outage; a mark that leaps is a gap. They need opposite responses, and watching only the value, rather than how fast it changes, tells them apart from neither.",
				}},
			}},
			{ID: "meaning", Level: 3, Title: "When the schema or meaning changes", Sources: []string{"When the schema or meaning changes"}, Blocks: []Block{
				List{Items: []string{
					"Changing what the mark means — from `updated_at` to a log position, or from the reader's clock to the source's — is a migration. Old and new values cannot be compared, so the switch needs a stretch of time processed both ways.",
					"Repartitioning a source invalidates per-partition marks: offset 812 in partition 3 means nothing once the number of partitions changes. The safe move is a fresh {snapshot}, not a translated position.",
					"A source that changes how it assigns timestamps — a new ORM, a different column default, a move from statement time to commit time — changes how complete the pipeline is, with no schema change and no notice.",
				}},
			}},
			{ID: "rerun", Level: 3, Title: "How to re-run this safely", Sources: []string{"How to re-run this safely"}, Blocks: []Block{
				List{Items: []string{
					"A restart is the normal case and the reason the mark exists: resume from the stored position, process everything after it again, and let idempotent writes make the overlap harmless.",
					"If the mark skipped ahead past unprocessed records, recover by moving it back to a known-good position and processing forward. That is safe only with idempotent writes; otherwise it is a duplication incident of its own.",
					"If the mark is lost altogether, recovery depends on what the source still keeps: a log within {retention} can be replayed from its earliest position; a source without one needs a full {snapshot}.",
					"For a suspected gap of unknown size, do not guess. Reconcile interval by interval against the source to find the affected range, then re-run exactly that range ({backfill}).",
					"Keep the mark's history — every value and when it was stored — because \"when did this pipeline stop seeing rows?\" is otherwise impossible to answer.",
				}},
			}},
			{ID: "wrong", Level: 2, Title: "What can go wrong", Sources: []string{"What can go wrong"}, Blocks: []Block{
				Para("Two lists: the ways the mark fails, and the beliefs that keep those failures hidden."),
			}},
			{ID: "failures", Level: 3, Title: "Failure modes", Sources: []string{"Failure modes"}, Blocks: []Block{
				List{Items: []string{
					"The mark moves past rows that have not committed yet — the normal behaviour of a naive timestamp mark under any concurrent write load.",
					"The mark is stored before the output is durable, so a crash leaves a range marked done and empty.",
					"Two workers write the same mark, so it holds the later write rather than the smaller position.",
					"A clock correction moves the source's timestamps backwards, and the mark skips a window of rows stamped in the \"past\" ({clock-skew}).",
					"A log position outlives the log's {retention}: resuming is impossible and only a re-snapshot recovers.",
					"The mitigation itself fails: an overlap window sized from typical commit times, against a source that now and then runs one long batch transaction and stamps every row with its start.",
				}},
				Predict{
					ID:       "overlap-batch",
					Question: "Each run re-reads five seconds behind the mark. A batch job stamps orders 6 to 10 with its start, 10:00:15, and commits forty seconds later. Which orders does the target end up without?",
					Scenario: "hwm/overlap-window",
					Options: []Option{
						{ID: "a", Label: "None: the overlap catches late commits", Claim: Claim{Kind: MissingExactly}},
						{ID: "b", Label: "Orders 6 to 10, the batch", Claim: Claim{Kind: MissingExactly, Keys: []string{"6", "7", "8", "9", "10"}}},
						{ID: "c", Label: "Orders 3 and 5 as well as the batch", Claim: Claim{Kind: MissingExactly, Keys: []string{"3", "5", "6", "7", "8", "9", "10"}}},
					},
					Why: "Five seconds is plenty for orders 3 and 5, which commit three seconds late. The batch commits forty seconds after its stamp, so by then the mark is far past 10:00:15 and the window behind it does not reach back that far.",
				},
			}},
			{ID: "misreads", Level: 3, Title: "Misreads", Sources: []string{"Misreads"}, Blocks: []Block{
				List{Items: []string{
					"**\"`last_processed_timestamp` is a high-water mark.\"** It approximates one. A real high-water mark backs the claim \"everything up to here is processed\", and a timestamp cannot back it while commits overlap.",
					"**\"More precision fixes it.\"** The gap lies between assigning a timestamp and the commit becoming visible, not between milliseconds and microseconds. Nanosecond stamps lose exactly the same rows.",
					"**\"We use `>=`, so nothing is missed.\"** That stops the tie loss and does nothing for rows that commit after the mark has passed their timestamp. It also needs idempotent writes to be safe at all.",
					"**\"The mark is fine, the row count looks normal.\"** A skip removes rows that were never counted anywhere. Looking normal is exactly how this failure presents.",
					"**\"Offsets and timestamps are interchangeable.\"** An offset is a place in an order the source defined; a timestamp is a value the source wrote into a column. Only the first supports resuming.",
				}},
				Predict{
					ID:       "steady-mark",
					Question: "For thirty seconds nothing commits: a long transaction holds a lock and three orders queue behind it. The mark, read from the reader's clock, moves its usual ten seconds on every run. Do the four orders from the stall reach the target?",
					Scenario: "hwm/stalled-mark", Knobs: map[string]string{"mark": "timestamp"},
					Options: []Option{
						{ID: "a", Label: "Yes — the mark looks healthy, so the data is", Claim: Claim{Kind: Present, Keys: []string{"4", "5", "6", "7"}}},
						{ID: "b", Label: "No — orders 4 to 7 are missing", Claim: Claim{Kind: Missing, Keys: []string{"4", "5", "6", "7"}}},
					},
					Why: "The four orders are stamped when their transactions begin, between 10:00:12 and 10:00:32, and become visible together at 10:00:42, when the mark already says 10:00:40. A mark that moves at a normal pace says nothing about whether the rows behind it arrived.",
				},
			}},
			{ID: "operating", Level: 2, Title: "Operating it", Sources: []string{"Operating it"}, Blocks: []Block{
				Para("What to watch in production, what changes as volume grows, and where the money goes."),
			}},
			{ID: "signals", Level: 3, Title: "How you see it in production", Sources: []string{"How you see it in production"}, Blocks: []Block{
				List{Items: []string{
					"{watermark-lag|Watermark lag} per source and per partition, alerting on stalls and on jumps alike.",
					"The mark's value plotted over time, so a step backwards or a discontinuity is visible rather than deduced ({pipeline-metrics}).",
					"Records processed per run next to the source's own count for the same window — the only external check on completeness ({reconciliation}).",
					"Whether the mark moved on a run that found zero rows: the fingerprint of a skip, and impossible to tell from a quiet period without the source count.",
				}},
				Predict{
					ID:       "stall-alert",
					Question: "Same stall, but now the mark stores the newest `updated_at` it has read, and the rate check fails after two runs without an advance. What happens?",
					Scenario: "hwm/stalled-mark",
					Options: []Option{
						{ID: "a", Label: "The rate check fires during the stall, and no order is lost", Claim: Claim{Kind: CheckStatus, Check: "rate-of-change", Status: check.Fail}},
						{ID: "b", Label: "The rate check stays quiet, and orders 4 to 7 are lost", Claim: Claim{Kind: Missing, Keys: []string{"4", "5", "6", "7"}}},
						{ID: "c", Label: "The gap scan finds a hole", Claim: Claim{Kind: CheckStatus, Check: "gap-scan", Status: check.Fail}},
					},
					Why: "With nothing new to read, a mark built from the rows themselves cannot move, so the stall shows up as two runs without an advance. When the backlog commits, its stamps are all above that mark, and the next run reads every one of them.",
				},
			}},
			{ID: "scale", Level: 3, Title: "What changes at 10x and 100x", Sources: []string{"What changes at 10x and 100x"}, Blocks: []Block{
				List{Items: []string{
					"At ten times the throughput, one global mark becomes a point of write contention, and the design moves to one mark per partition or shard.",
					"At a hundred times, transactions get longer and overlap more, so the commit-visibility gap widens and timestamp marks lose more rows just as the data matters more ({isolation-level}).",
					"More partitions weaken the pipeline-wide \"processed through\": it is the minimum of all marks, so the slowest partition defines the honest position of the whole pipeline ({partition}).",
				}},
				Para("The second point is easy to play. The scenario below is one steady stream of sixty orders, one transaction beginning every half second, each stamped when it begins. The load knob sets how long the longest transaction runs — one, ten or a hundred seconds — so about one, ten or a hundred transactions are open at any moment, while the pipeline keeps running every ten seconds."),
				Predict{
					ID:       "load-100x",
					Question: "At 1x the timestamp mark loses a handful of the sixty orders. At 100x — transactions up to a hundred seconds long, about a hundred open at once — how many does it lose?",
					Scenario: "hwm/load", Knobs: map[string]string{"load": "100s"},
					Options: []Option{
						{ID: "a", Label: "About the same handful: the runs are just bigger", Claim: Claim{Kind: MissingCount, Min: 1, Max: 9}},
						{ID: "b", Label: "Somewhere between ten and forty", Claim: Claim{Kind: MissingCount, Min: 10, Max: 40}},
						{ID: "c", Label: "Most of them: more than forty", Claim: Claim{Kind: MissingCount, Min: 41}},
					},
					Why: "A row is lost when a run stores its mark while the row's transaction is still open. The longer transactions run, the more of them straddle some run, until almost every order does. The log-position line stays at zero at every load: it only ever moves past commits.",
				},
				Embeds{
					{Scenario: "hwm/load", Caption: "Load at 1x: a few transactions straddle a run and fall behind the mark. Flip the load knob to 10x and 100x, or the mark to a log position."},
				},
				Plot{
					ID: "load", Scenario: "hwm/load", X: "load", XTitle: "Load",
					XLabels: map[string]string{"1s": "1x", "10s": "10x", "100s": "100x"},
					Series:  "mark", Labels: map[string]string{"timestamp": "Timestamp mark", "lsn": "Log-position mark"},
					Caption: "Rows lost out of sixty, against load, for a timestamp mark and a log-position mark (the engine runs each point when this page is drawn)",
				},
			}},
			{ID: "cost", Level: 3, Title: "What it costs", Sources: []string{"What drives cost here", "What this approach costs"}, Blocks: []Block{
				Para("What drives the cost:"),
				List{Items: []string{
					"Storing the mark costs next to nothing. Making it correct costs the overlap: a trailing window read again on every run.",
					"Per-partition marks cost more state and remove a contention point. The trade improves as parallelism grows, so make it early.",
					"The reconciliation that proves the mark sound costs one source-side count per interval — the cheapest insurance here and the one most often skipped.",
				}},
				Para("What each choice buys, and what it costs:"),
				List{Items: []string{
					"A log position buys an exact, replayable guarantee. It costs a source that exposes one and the operational work of consuming it. A timestamp works against anything, and its error cannot be seen.",
					"Storing the mark after the write buys completeness and costs duplicates on restart — acceptable only because idempotent writes make duplicates free. Without idempotency both orders are wrong, in different directions.",
					"An overlap window buys tolerance for late commits and costs repeated reads on every run, for as long as the pipeline lives: a small permanent cost set against a large, occasional loss.",
				}},
			}},
			{ID: "applies", Level: 2, Title: "Where each claim applies", Sources: []string{"Where this applies"}, Blocks: []Block{
				Para("Very little here is universal. Each label says what a claim depends on, and where a different engine, broker, source or scale would change it."),
				Note{Label: "General", Text: "The difference between a position in an order and a timestamp holds everywhere, and so does the rule that the mark moves only after the output is durable. What varies is whether a source offers a position at all — which decides whether you get a guarantee or an estimate."},
				Note{Label: "Broker-specific", Text: "Kafka {offset|offsets} are per partition, dense and increasing, so a committed offset is an exact resume point inside its partition and says nothing across partitions. Kinesis sequence numbers are per shard and opaque. Pub/Sub exposes no position to the client at all and acknowledges messages one by one, so \"resume from X\" cannot even be expressed, and what gets redelivered is a different kind of thing."},
				Note{Label: "Source-specific", Text: "A Postgres {lsn} and a MySQL binlog file and position are exact positions in the source's own commit order. A SaaS API that only offers \"modified since\" gives you the vendor's clock, the vendor's idea of a modification and no statement about visibility — the same code over that source carries a much weaker guarantee."},
			}},
			{ID: "further", Level: 2, Title: "Where to go deeper", Sources: []string{"Where the depth lives", "Domains that do not exist yet"}, Blocks: []Block{
				Para("This lesson is about how data moves and how you know it arrived whole. Neighbouring subjects carry the rest:"),
				List{Items: []string{
					"**Databases:** {wal|write-ahead logging}, {mvcc}, {isolation-level|isolation levels}, {transaction|transactions}, crash recovery.",
					"**Services:** job and storage idempotency, {at-least-once} delivery, optimistic concurrency, duplicate detection, retries.",
					"**Architecture:** idempotency as a design property; event sourcing.",
					"**Observability:** the age of the oldest unprocessed item in a queue.",
					"**Concurrency:** ordering guarantees, reasoning about races, and why atomic operations alone do not make a design correct.",
					"**Distributed systems:** {clock-skew|clock skew} and event-time watermarks.",
				}},
				Para("Two subjects deserve a course of their own. Distributed systems explains why a timestamp is not a position: without one synchronised clock there is no total order across concurrent writers, so no value read from a clock can cut a running system cleanly in two — this lesson is one of its most practical consequences. Production operations covers the other half: where pipeline state lives, how it is backed up, and what restoring the state table from a snapshot does to a pipeline that has moved on since. Restoring the mark on its own is a data incident disguised as routine recovery."),
			}},
		},
		Glossary: hwmGlossary,
	}
}

var hwmGlossary = []Term{
	{ID: "hwm", Name: "High-water mark", Definition: "The stored value that says how far a pipeline has got: everything at or before it is processed and its output is durable. The next run starts after it."},
	{ID: "offset", Name: "Offset", Definition: "A record's number within one partition of a log such as a Kafka topic. Offsets are dense and increasing, so \"committed offset 1048\" names exactly where to resume."},
	{ID: "lsn", Name: "LSN (log sequence number)", Definition: "A position in a database's write-ahead log, such as Postgres's. Positions follow commit order, so an LSN is an exact place to resume reading changes from."},
	{ID: "wal", Name: "Write-ahead log (WAL)", Definition: "The log a database writes every change to before applying it. It exists for crash recovery, and change data capture reads it as an ordered stream of commits."},
	{ID: "mvcc", Name: "MVCC (multi-version concurrency control)", Definition: "How databases such as Postgres let readers and writers work at once: each transaction sees a snapshot, and a row written by another transaction becomes visible only when that transaction commits."},
	{ID: "transaction", Name: "Transaction", Definition: "A group of changes that commit together or not at all. Other sessions see none of them until the commit."},
	{ID: "isolation-level", Name: "Isolation level", Definition: "How much of other transactions' work a transaction can see while it runs. Under the usual levels, uncommitted rows are invisible — which is what opens the gap between a row's timestamp and its visibility."},
	{ID: "idempotent-write", Name: "Idempotent write", Definition: "A write that leaves the target the same whether it runs once or several times, such as a merge on the business key or an overwrite of a whole interval. It makes repeated input harmless."},
	{ID: "at-least-once", Name: "At-least-once", Definition: "A delivery guarantee: nothing is lost, but after a failure some records may arrive again. Storing the mark after the write gives it."},
	{ID: "at-most-once", Name: "At-most-once", Definition: "A delivery guarantee: nothing arrives twice, but after a failure some records may never arrive. Storing the mark before the write gives it."},
	{ID: "reconciliation", Name: "Reconciliation", Definition: "Comparing what the target holds with what the source says it should hold, usually as counts per interval. It only finds losses if the source's count does not share the pipeline's own blind spot."},
	{ID: "closed-period", Name: "Closed period", Definition: "An interval no new rows can still arrive in. Counting it is meaningful; counting an open period compares against rows that are still on their way."},
	{ID: "overlap-window", Name: "Overlap window", Definition: "A stretch of time behind the stored mark that every run reads again, to catch rows that became visible late. It only costs repeated reads if the write is idempotent."},
	{ID: "watermark-lag", Name: "Watermark lag", Definition: "How far the stored mark trails the newest record in the source. It measures freshness; a lag that stops shrinking or suddenly collapses both need a look."},
	{ID: "cdc", Name: "Change data capture (CDC)", Definition: "Reading a database's changes from its log, in commit order and by position, instead of querying its tables for recently changed rows."},
	{ID: "retention", Name: "Retention", Definition: "How long a log keeps its records. A position older than the retention can no longer be replayed."},
	{ID: "partition", Name: "Partition", Definition: "One independently ordered slice of a log or table. Positions and marks are per partition; there is no order across partitions unless you build one."},
	{ID: "cas", Name: "Conditional update (compare-and-set)", Definition: "An update that only applies if the stored value is still the one you read first. Two writers racing then produce a visible conflict instead of a silent overwrite."},
	{ID: "checkpoint", Name: "Checkpoint", Definition: "Saved progress a process can restart from. The high-water mark is a pipeline's checkpoint; where it is saved relative to the output decides what a crash costs."},
	{ID: "clock-skew", Name: "Clock skew", Definition: "The difference between two machines' clocks, and the corrections that change it. A timestamp from one clock compared with a time from another carries that error."},
	{ID: "snapshot", Name: "Snapshot (re-snapshot)", Definition: "A full copy of the source taken at one moment, used to rebuild a target when no log position can be trusted or replayed."},
	{ID: "backfill", Name: "Backfill", Definition: "Re-processing a chosen past range on purpose, for example one that reconciliation showed to be incomplete."},
	{ID: "pipeline-metrics", Name: "Pipeline metrics", Definition: "Numbers a pipeline reports about its own runs — rows read, rows written, how far the mark moved. They cannot show rows the pipeline never read."},
}
