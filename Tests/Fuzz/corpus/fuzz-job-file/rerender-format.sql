-- job: fuzz
-- does: After an editor upgrade, queue a re-render of every asset whose current chain has a layer in :format_identifier (below :below_version, if given), skipping assets with the same re-render already queued or running. Workers replay each chain from the original with their code and record every layer at its editor's current version; only workers writing at least :below_version take these jobs, so a rolling upgrade is safe.
-- schedule: on demand, after deploying workers with the new editor; then follow with `darkroom status --batch NAME --follow`
-- param: format_identifier text  -- e.g. io.darkroom.pipeline
-- param: below_version text =   -- e.g. 1.1.0: layers written by older versions are re-rendered; empty: every layer in the format
-- param: batch text = rerender  -- the jobs' batch, for darkroom.batch_summary, status --batch and retry-batch
-- param: priority int = -20  -- below nightly runs and interactive edits
-- One INSERT ... SELECT inside darkroom.enqueue_rerender: one statement, one NOTIFY. Prints how many were queued.
SELECT darkroom.enqueue_rerender(:format_identifier, nullif(:below_version, ''), :priority, :batch) AS queued
