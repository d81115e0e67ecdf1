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
				Para("Storing a {hwm|high-water mark} asserts two things at once: every record up to the stored position has been handled, and whatever that handling produced will survive a crash. Both halves hold only when the output and the position become durable in a single {transaction|transaction} — or, where that is impossible, when the output becomes durable first."),
				List{Items: []string{
					"**A log position is exact.** Whether it is a partition offset, an {lsn} or a binlog file with a position inside it, it picks out a single record. The source numbers records in the order they commit, the numbers only go up, and you can start reading again from any of them.",
					"**A timestamp only approximates that order.** The value is fixed at one moment of a transaction and the row appears at a later one. Two rows can share it, concurrent writers can produce it out of order, and a clock correction can send it backwards. It answers \"about when?\" but never \"exactly where?\".",
					"**Finer resolution does not help.** What you lack is a guarantee, not precision. Rows are lost in the interval between stamping a row and the row becoming visible, and that interval is the same length whether you count it in seconds or in nanoseconds ({isolation-level}).",
					"**Moving the mark is the moment the pipeline commits.** The safest place to write it is inside the output's own transaction. Where no such transaction exists, write it only once the output is durable: a crash then costs you repeated work, never skipped work ({checkpoint}).",
					"**Choosing that order is choosing a delivery guarantee.** Write first and move the mark second, and you have {at-least-once}: a restart can repeat rows, and an idempotent write soaks the repeats up. Move the mark first, and you have {at-most-once}: a restart can leave holes, and nothing soaks those up. No third arrangement exists.",
				}},
			}},
			{ID: "visibility-gap", Level: 3, Title: "Why a timestamp leaves a gap that a position does not", Sources: []string{"A position, and the gap a timestamp cannot close"}, Blocks: []Block{
				Note{Label: "Source-specific", Text: "The width of the gap is a property of the source. A row store using {mvcc} keeps it open for as long as its longest-running transaction. A log that appends records and numbers them as they commit leaves next to none. An API you can only ask for rows \"modified since\" a time has whatever gap its vendor built in, usually undocumented. Every source fails in the same way; they differ only in how wide the window is."},
				Para("Two quite different things both go by the name watermark, and only one of them can carry the claim we need. A log position picks out one record in a sequence that the source put in order itself. A timestamp is just a column value, filled in at some point while a transaction ran. The position can say \"everything up to here is done\"; the timestamp cannot. Why it cannot accounts for a great many of the rows that go missing without an error, so take this part slowly."),
				Para("A log numbers its records as they commit, one after another, never skipping a number. A stored mark of 1047 therefore means records up to 1047 are done and the next run begins with 1048. There is nothing to interpret and no clock to consult."),
				Para("With timestamps there are two moments, not one: the statement that writes a row fills in `updated_at`, and other sessions can see the row only after its transaction commits. The scenario below replays four transactions. Follow order 3: stamped 10:00:00, committed at 10:00:04. The run at 10:00:02 sees orders 1 and 2, stores 10:00:02 and finishes. When order 3 becomes visible its stamp is already below the mark, so a strictly-greater query will never return it. The source has the row, the target does not, both systems did exactly what they promise, and no error is raised anywhere."),
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
					"Longer transactions, and more of them running at once, both widen the gap, so the losses climb precisely when the system is under the most load ({isolation-level}).",
					"Whose clock sets the mark is a second, independent choice. Take it from the reader, and rows the source stamped a moment earlier by its own reckoning fall behind. Take it from the source, and you inherit each adjustment made to that clock and the drift of every replica ({clock-skew}).",
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
				Para("After choosing what the mark holds, you face one more choice, and it is binary: is the mark saved before the output is durable, or after? Before means {at-most-once}: if the process dies in between, a range is on record as finished although nothing was written for it. After means {at-least-once}: if the process dies in between, the next run writes a range that is already there a second time."),
				Para("Saving after should be your default, and the one thing that makes it safe is an {idempotent-write}, under which the repeat changes nothing. Here the high-water mark and idempotency turn out to be a single topic: a write that cannot replace its own slice leaves both orders wrong — one drops rows, the other doubles them — and nothing safe in between."),
				Para("Where your storage can do it, skip the choice entirely: write output and mark within a single {transaction|transaction}, and they can never tell different stories. That needs both to sit in one database. If the output is a set of files in an object store and the mark is a row in some other system, no such transaction exists; saving after and writing idempotently is then the closest honest substitute."),
				Compare{
					Caption: "The same crash, between the two durable steps, with the mark stored first or last",
					Sides: [2]Side{
						{Title: "Store the mark, then write", Text: "The run reads from the stored mark, works out how far it got, saves that, and only then writes its output. Should the process die between the save and the end of the write, the range is on record as processed yet has no output — and because the mark vouches for it, no later run ever goes back.",
							Embed: Embed{Scenario: "hwm/advance-order", Knobs: map[string]string{"advance": "before"}, Caption: "Mark first: orders 3 and 4 are recorded as done and never written."}},
						{Title: "Write, then store the mark — or both at once", Text: "The run publishes its output atomically, waits until it is durable, and saves the mark last. A crash in between makes the next run write that range again; if the write replaces the whole interval, or merges on the business key, the repeat leaves nothing behind. And when output and mark can go in one transaction, commit them as one and there is no order left to get wrong.",
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
				Para("Picking the order is picking between at-most-once and at-least-once, and the two failures are not equally bad. You can find a duplicate, and an idempotent write makes it cost nothing. You cannot find a gap from inside the pipeline, and once the source's {retention} has passed it you cannot fill it either. Prefer the failure you can absorb to the one you cannot see; there is no more to the argument than that."),
			}},
			{ID: "one-transaction", Level: 3, Title: "One transaction for the output and the mark", Sources: []string{"Advancing a mark in the same transaction as the output"}, Blocks: []Block{
				Para("If the mark is a row in the same database as the target table, a single transaction can do both jobs. Here is one way to write it; the numbered comments point at the three safeguards."),
				Code{Lang: "sql", Caption: "One run: merge a range of log positions, then move the mark if nobody else has", Text: `-- fct_orders and pipeline_marks live in one database, so this run's rows
-- and its new mark become visible together or not at all.
START TRANSACTION;

-- (1) The batch is a half-open range of log positions: (:from_lsn, :to_lsn].
MERGE INTO fct_orders AS dst
USING (
    SELECT order_id, customer_id, order_date, amount_minor
      FROM stg_orders
     WHERE source_lsn > :from_lsn
       AND source_lsn <= :to_lsn
) AS batch
ON dst.order_id = batch.order_id
WHEN MATCHED THEN
    UPDATE SET amount_minor = batch.amount_minor
WHEN NOT MATCHED THEN
    INSERT (order_id, customer_id, order_date, amount_minor)
    VALUES (batch.order_id, batch.customer_id, batch.order_date, batch.amount_minor);

-- (2) Compare-and-set: the row matches only while the mark still reads :from_lsn,
-- (3) and only if :to_lsn lies ahead of it.
UPDATE pipeline_marks
   SET mark_lsn  = :to_lsn,
       stored_at = now()
 WHERE pipeline_name = 'orders'
   AND mark_lsn = :from_lsn
   AND mark_lsn < :to_lsn;

-- One row updated: COMMIT. Zero rows: some other run moved the mark
-- first, so ROLLBACK instead. Giving up loses nothing, because the
-- merge above can safely run again.
COMMIT;`},
				Para("The first safeguard is that the batch is cut by log position rather than by clock, which leaves no visibility gap to lose rows in. The second is the {cas|conditional update}: the update finds its row only while the mark still holds the value this run began with, so a write that would silently have replaced another run's becomes a conflict this run notices and backs out of. The third is that the mark cannot go down, so neither a corrected clock nor a straggling worker can quietly wind back what the pipeline says about itself."),
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
				Note{Label: "Simplified", Text: "The gap scan takes for granted that ids come out densely and that no insert is ever rolled back. Plenty of sources break that: a sequence that hands each session a cached block, a distributed id scheme, any rolled-back insert — each leaves holes that mean nothing. If the source really numbers rows without holes, a gap in the target is a lost row; if it does not, the scan mostly produces false alarms."},
				Para("The hard part is that this failure leaves nothing behind in the pipeline. A row that was skipped was also never read, counted or written, so every figure the pipeline records about itself fits a world in which that row was never there. Any detection must therefore look elsewhere: at the source, or at how the mark moves over time."),
				Para("The six checks below are the ones worth running. Count how many of them examine data: two watch the mark, one compares with the source, one looks at the overlap, and just one reads the target's rows. That split is deliberate. Monitor the state, because no amount of looking at the rows you have will show you the rows you lack."),
				Para("The \"still misses\" column deserves more attention than usual, because these checks tend to fail at the same time. A {reconciliation} that counts the source with the pipeline's own timestamp column and window falls into the same gap and reports that everything matches. The count has to come from something the source works out by itself — its own totals, or how many rows fall in a range of primary keys — otherwise the check endorses the very bug it was meant to expose."),
				Checks{
					Caption: "Six checks on a mark: each runs once where it notices the fault and once where it stays quiet about a real one",
					Rows: []CheckRow{
						{Name: "Monotonicity", Expresses: "The mark never goes down, except when someone resets it deliberately.", Catches: "A mark going backwards: a corrected clock, two workers writing the same mark, a state table put back from a backup.", Misses: "A mark that runs ahead of the data — and running ahead is how rows are actually lost.",
							Caught: Embed{Scenario: "hwm/racing-workers", Focus: "monotonicity", Caption: "The slower worker moves the mark backwards."},
							Missed: Embed{Scenario: "hwm/visibility-gap", Focus: "monotonicity", Caption: "The mark only rises, while orders 3 and 4 are lost."}},
						{Name: "Rate of change", Expresses: "Each run moves the mark, and by an amount that looks right.", Catches: "A source that has stopped, a consumer that is stuck, a single jump far bigger than usual after an outage.", Misses: "Losses that are small and steady: a run that comes up a few rows short still moves the mark by a normal-looking amount ({pipeline-metrics}).",
							Caught: Embed{Scenario: "hwm/stalled-mark", Focus: "rate-of-change", Caption: "Nothing commits for thirty seconds; a mark that stores the newest timestamp it has read stops moving, and the check sees the stall."},
							Missed: Embed{Scenario: "hwm/stalled-mark", Knobs: map[string]string{"mark": "timestamp"}, Focus: "rate-of-change", Caption: "A mark taken from the reader's clock keeps its usual pace through the stall, and the four orders stamped while they waited are lost."}},
						{Name: "Source count per closed interval", Expresses: "The target holds everything the system of record says it should.", Catches: "Whatever the mark let slip: rows caught in the visibility gap, backdated corrections, whole ranges skipped.", Misses: "All of it, when the source-side count selects rows by the pipeline's own timestamp column: it then falls into the same gap and confirms the wrong answer.",
							Caught: Embed{Scenario: "hwm/reconciliation", Focus: "reconciliation-independent", Caption: "Counted independently over a closed interval: two orders short."},
							Missed: Embed{Scenario: "hwm/reconciliation", Focus: "reconciliation-same-column", Caption: "Counted with the pipeline's own column and window: it agrees with the bug."}},
						{Name: "Advance with zero rows", Expresses: "No run moves the mark while finding nothing to read.", Catches: "The trace a skip leaves, and also a filter that no longer matches anything.", Misses: "A source that really was idle looks just the same, so on its own it settles nothing; pair it with the source count.",
							Caught: Embed{Scenario: "hwm/visibility-gap", Focus: "zero-advance", Caption: "The 10:00:07 run moves the mark and writes nothing."},
							Missed: Embed{Scenario: "hwm/visibility-gap", Knobs: map[string]string{"predicate": "gte"}, Focus: "zero-advance", Caption: "With `>=` every run finds something, yet order 3 is still lost."}},
						{Name: "Overlap re-read finds known rows", Expresses: "The {overlap-window} is catching rows that committed late.", Catches: "More and more late commits turning up in the overlap: the cue to widen it before rows start slipping past.", Misses: "Rows that commit later than the window reaches back — precisely the rows that are lost.",
							Caught: Embed{Scenario: "hwm/overlap-window", Focus: "overlap-reread", Caption: "The overlap re-reads rows that committed late."},
							Missed: Embed{Scenario: "hwm/overlap-window", Knobs: map[string]string{"overlap": "0s"}, Focus: "overlap-reread", Caption: "With no overlap the check has nothing to look at, and seven orders are lost."}},
						{Name: "Primary-key gap scan", Expresses: "If the source numbers rows without gaps, the target's ids have no holes.", Catches: "Lost rows themselves, found without consulting any clock, provided the source hands out ids densely.", Misses: "Keys that are not sequential, holes left legitimately by deletes or rollbacks, and anything lost beyond the largest id the target has.",
							Caught: Embed{Scenario: "hwm/visibility-gap", Focus: "gap-scan", Caption: "Ids 3 and 4 are missing between 1 and 5."},
							Missed: Embed{Scenario: "hwm/clock-skew", Knobs: map[string]string{"jump": "-5s"}, Focus: "gap-scan", Caption: "Orders 3, 4 and 5 are lost, but they are the newest ids, so there is no hole to find."}},
					},
				},
				Para("Teams tend to forget the last one. On a source with dense ids it finds lost rows without reading a single timestamp, so of all the checks in the table it alone cannot be misled by the clock behaviour that caused the loss."),
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
					"**If the source exposes a log position, use it.** Following a database's change log by position ({cdc}) reduces \"did we miss anything?\" to subtracting one number from another.",
					"**If all you have is a timestamp, do not let it work unsupervised.** Re-read an {overlap-window} behind the mark on every run; make the write idempotent, so that re-reading costs nothing but compute; and compare your counts with the source's once each period is over ({closed-period|closed periods}).",
					"**Save the mark only once the output is published and durable**, and put the two in one transaction whenever your storage supports it.",
					"**Give each partition, shard or table a mark of its own.** One mark shared by all of them funnels the work through a single point, and the slowest source then sets the pace for every other ({partition}).",
					"**Document the mark's meaning, and make it possible to reset.** A single line such as \"`updated_at` as the source writes it when the statement starts; visible once the transaction commits\" heads off a whole family of incidents. And the repair for a mark that jumped too far is to move it back — which you can only do with confidence if you know the values it held before, who last changed it, and that winding it back will do no harm.",
					"**Where the data is already partitioned by a usable event time, process whole intervals instead of keeping a mark**: there is then no state to save, nothing to race on and nothing to reset.",
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
				Para("State each guarantee by what it leaves out. Knowing what you are not promised is the more useful half, because everyone downstream of you ends up with no more than the weakest promise made anywhere upstream."),
				List{Items: []string{
					"**A log-position mark lets you resume at an exact point.** Everything after the position arrives; nothing before it arrives again unless you rewind on purpose. Add an idempotent write, and a replayed range changes the output only once. Note what that covers: the write to the output, not the reading — and only if recomputing the range gives the same result every time.",
					"**A timestamp mark promises much less.** It tells you that the run looked at the rows stamped later than the stored value when it read. Whether every row that belongs in that range could be seen at the time, it cannot tell you — not now, and not with any amount of care.",
					"**Save after the write and you are promised no gaps but may get duplicates; save before and it is the other way round.** Ruling out both takes a shared transaction.",
					"**A mark per partition lets each partition resume on its own.** It implies nothing about order between partitions; a \"processed through\" for the whole pipeline is honest only if it is the smallest of the marks.",
					"**{retention|Retention} bounds every one of these.** You can replay from a position only while the log still keeps it; after that, the mark refers to records the source has already deleted.",
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
					"The check to keep running is a {reconciliation} with the source, one closed period at a time: ask the source how many records belong to an interval and set that number beside the target's. No other check can find a mark that skipped rows, since that failure leaves the pipeline itself nothing to notice.",
					"It says nothing about periods that have not closed, and nothing useful when the source count selects rows the same way the lost rows were selected: count by `updated_at` and you get the same gap back, faithfully reproduced.",
					"Next in value is monotonicity: raise an alert whenever the mark decreases, unless someone reset it deliberately. A falling mark means a clock was corrected or two writers collided, and either way a person should look.",
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
					"Each run reads from the mark upwards, so {watermark-lag} — the distance between the mark and the newest record in the source — tells you more directly than anything else how fresh the output is.",
					"An overlap window spends a fixed amount of re-reading to cover the commit-visibility gap. The output arrives no later for it; each run simply reads a wider slice.",
					"A mark that freezes points to an outage, and one that lurches forward points to a gap; the two call for opposite responses. Watching the value alone reveals neither — watch how fast it changes.",
				}},
			}},
			{ID: "meaning", Level: 3, Title: "When the schema or meaning changes", Sources: []string{"When the schema or meaning changes"}, Blocks: []Block{
				List{Items: []string{
					"Redefining the mark — moving it off `updated_at` onto a log position, or off the reader's clock onto the source's — has to be run as a migration. A value of the old kind cannot be compared with one of the new kind, so process a stretch of time both ways before you cut over.",
					"Repartitioning a source makes per-partition marks worthless: once the partition count changes, offset 812 in partition 3 no longer refers to anything. Take a fresh {snapshot} rather than trying to translate the old position.",
					"If the source starts stamping rows differently — because of a new ORM, a changed column default, or a move to commit-time stamps in place of statement-time ones — the pipeline's completeness changes with it, while the schema stays the same and nobody is told.",
				}},
			}},
			{ID: "rerun", Level: 3, Title: "How to re-run this safely", Sources: []string{"How to re-run this safely"}, Blocks: []Block{
				List{Items: []string{
					"Restarting is routine — it is what the mark is for. Pick up at the stored position, process whatever lies after it, and count on idempotent writes to absorb the part that gets done twice.",
					"A mark that jumped past records it never processed is repaired by setting it back to a position you trust and working forward again. Without idempotent writes, that repair becomes a duplication incident of its own.",
					"When the mark is gone entirely, what you can do depends on what the source has kept. A log still inside its {retention} lets you start again from the oldest position it holds; a source with no such log leaves a full {snapshot} as the only way back.",
					"If you suspect a gap but cannot say how big it is, resist estimating. Compare counts with the source interval by interval until you have found the ranges that come up short, then process those ranges again and nothing else ({backfill}).",
					"Record the mark's history, every value together with the time it was stored. Without it, nobody can say when the pipeline stopped seeing rows.",
				}},
			}},
			{ID: "wrong", Level: 2, Title: "What can go wrong", Sources: []string{"What can go wrong"}, Blocks: []Block{
				Para("Two lists: the ways the mark fails, and the beliefs that keep those failures hidden."),
			}},
			{ID: "failures", Level: 3, Title: "Failure modes", Sources: []string{"Failure modes"}, Blocks: []Block{
				List{Items: []string{
					"The mark overtakes rows whose transactions are still open. With concurrent writers, a plain timestamp mark does this as a matter of course.",
					"The mark is saved before the output is durable, and a crash in between puts a range on record as finished that has no output.",
					"Two workers share a mark, so its value is whichever of them wrote last, not the lower of their two positions.",
					"A clock correction moves the source's timestamps backwards, and the mark skips a window of rows stamped in the \"past\" ({clock-skew}).",
					"The log's {retention} runs out before the pipeline resumes: the position no longer exists, and only a new snapshot gets you back.",
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
					"**\"Our `last_processed_timestamp` is the high-water mark.\"** At best it stands in for one. A true high-water mark can vouch that nothing up to it is left undone; while commits overlap, a timestamp cannot vouch for that.",
					"**\"Finer timestamps will fix it.\"** The gap sits between stamping a row and its commit becoming visible; milliseconds and microseconds do not enter into it. Stamps in nanoseconds miss the very same rows.",
					"**\"We read with `>=`, so we cannot miss anything.\"** It ends the loss of rows that tie with the mark, and does nothing for rows that commit after the mark has gone past their timestamp. Without idempotent writes it is not even safe.",
					"**\"The mark looks healthy and the row count is normal.\"** The rows a skip removes were never counted in the first place. Looking normal is not a sign this failure is absent; it is what this failure looks like.",
					"**\"An offset and a timestamp are two ways of saying the same thing.\"** An offset marks a place in a sequence the source ordered itself; a timestamp is a value that happens to be stored in a column. You can resume from the first, not from the second.",
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
					"For every source and every partition, {watermark-lag|watermark lag}, with an alert when it stalls and another when it jumps.",
					"A chart of the mark's value over time, where a step back or a sudden break shows up on sight instead of having to be inferred ({pipeline-metrics}).",
					"The rows each run processed, set beside the number the source reports for that interval — the one test of completeness that does not rely on the pipeline's word ({reconciliation}).",
					"Runs that moved the mark yet found no rows. That is how a skip looks, and without the source count it looks exactly like a quiet spell.",
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
					"At ten times the throughput, every worker writing to the same single mark becomes a bottleneck, and you split it into a mark for each partition or shard.",
					"At a hundred times, transactions run longer and more of them overlap. The commit-visibility gap grows with them, so a timestamp mark loses more rows at exactly the point where the data is worth most ({isolation-level}).",
					"Each added partition weakens what the pipeline as a whole can claim to have \"processed through\": that claim is the smallest of all the marks, so the partition furthest behind decides it ({partition}).",
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
					"Keeping the mark is practically free. Keeping it right is what costs: the overlap, a window behind the mark that every run reads a second time.",
					"A mark per partition means more state to keep and one less point that every worker contends for. The bargain gets better as parallelism grows, so strike it early.",
					"Proving the mark sound by reconciliation takes one count on the source side per interval. Nothing in this lesson buys more safety for less, and nothing is left out more often.",
				}},
				Para("What each choice buys, and what it costs:"),
				List{Items: []string{
					"A log position gets you a guarantee that is exact and can be replayed; the price is a source that exposes positions and the work of running a consumer against it. A timestamp fits any source, and you never see how wrong it is.",
					"Saving the mark after the write gets you completeness, paid for in duplicates whenever the pipeline restarts. That price is bearable only because an idempotent write makes a duplicate cost nothing; without one, each order is wrong, just in its own direction.",
					"An overlap window gets you tolerance of late commits, paid for by re-reading on every single run for the life of the pipeline: a small cost that never stops, set against a large loss that strikes now and then.",
				}},
			}},
			{ID: "applies", Level: 2, Title: "Where each claim applies", Sources: []string{"Where this applies"}, Blocks: []Block{
				Para("Few of these claims hold everywhere. The labels below say what each one rests on, and which change of engine, broker, source or scale would alter it."),
				Note{Label: "General", Text: "Two things hold for every source: a position in an order is a different kind of thing from a timestamp, and the mark moves only once the output is durable. Sources differ in whether they expose a position in the first place, and that settles whether you end up with a guarantee or only an estimate."},
				Note{Label: "Broker-specific", Text: "Kafka counts {offset|offsets} separately in each partition, without holes and only upwards; a committed offset is therefore a precise place to resume within its own partition and means nothing for any other. Kinesis gives each shard's records sequence numbers that the client is not meant to interpret. Pub/Sub shows the client no position whatsoever and acknowledges each message on its own, so there is no way even to say \"resume from X\", and redelivery works on a different unit altogether."},
				Note{Label: "Source-specific", Text: "In Postgres an {lsn}, and in MySQL a binlog file plus an offset within it, name an exact point in the order in which that database committed. A SaaS API that can only filter on \"modified since\" hands you the vendor's clock and the vendor's notion of what counts as modified, and says nothing about when changes become visible: identical code pointed at such a source gives a far weaker guarantee."},
			}},
			{ID: "further", Level: 2, Title: "Where to go deeper", Sources: []string{"Where the depth lives", "Domains that do not exist yet"}, Blocks: []Block{
				Para("This lesson covers how data travels and how you can tell that all of it got there. Neighbouring subjects carry the rest:"),
				List{Items: []string{
					"**Databases:** {wal|write-ahead logging}, {mvcc}, {isolation-level|isolation levels}, {transaction|transactions}, crash recovery.",
					"**Services:** retries, detecting duplicates, optimistic concurrency, {at-least-once} delivery, and idempotent jobs and storage.",
					"**Architecture:** idempotency as a design property; event sourcing.",
					"**Observability:** the age of the oldest unprocessed item in a queue.",
					"**Concurrency:** ordering guarantees, reasoning about races, and why atomic operations alone do not make a design correct.",
					"**Distributed systems:** {clock-skew|clock skew} and event-time watermarks.",
				}},
				Para("Two neighbouring subjects need a course each. Distributed systems explains what makes a timestamp different from a position: when writers share no single clock, their concurrent writes have no total order, and no reading of any clock can split a live system cleanly into before and after. Much of this lesson is that idea put to work. Production operations covers the other side: where the pipeline's state is kept, how it is backed up, and what happens when the state table is restored from a snapshot while the pipeline has carried on without it. Putting the mark back by itself looks like routine recovery and is in fact a data incident."),
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
	{ID: "cas", Name: "Conditional update (compare-and-set)", Definition: "An update guarded by a value you read earlier: it takes effect only while the stored value is unchanged. Two writers racing for one value then end in a conflict one of them sees, not in one quietly replacing the other."},
	{ID: "checkpoint", Name: "Checkpoint", Definition: "Saved progress a process can restart from. The high-water mark is a pipeline's checkpoint; where it is saved relative to the output decides what a crash costs."},
	{ID: "clock-skew", Name: "Clock skew", Definition: "The difference between two machines' clocks, and the corrections that change it. A timestamp from one clock compared with a time from another carries that error."},
	{ID: "snapshot", Name: "Snapshot (re-snapshot)", Definition: "A full copy of the source taken at one moment, used to rebuild a target when no log position can be trusted or replayed."},
	{ID: "backfill", Name: "Backfill", Definition: "Re-processing a chosen past range on purpose, for example one that reconciliation showed to be incomplete."},
	{ID: "pipeline-metrics", Name: "Pipeline metrics", Definition: "Numbers a pipeline reports about its own runs — rows read, rows written, how far the mark moved. They cannot show rows the pipeline never read."},
}
