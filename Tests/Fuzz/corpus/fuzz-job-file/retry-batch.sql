-- job: fuzz
-- does: Queue the failed jobs of a batch again with fresh attempts (their error history is kept); with include_cancelled=true, cancelled ones too.
-- schedule: on demand, after fixing what made them fail (see SELECT * FROM darkroom.failures WHERE batch = ...)
-- param: batch text  -- the batch name, as in darkroom.batch_summary
-- param: include_cancelled boolean = false
SELECT darkroom.retry_batch(:batch, :include_cancelled) AS requeued
