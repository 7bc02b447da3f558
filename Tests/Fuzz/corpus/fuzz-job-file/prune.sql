-- job: fuzz
-- does: Delete finished jobs older than their retention (settings keep_succeeded, keep_failed, keep_cancelled) in batches of :batch_size, one transaction each, until none is left; forget workers not seen for forget_workers_after. Adjustments keep their history.
-- schedule: daily at 03:30
-- param: batch_size int = 5000  -- rows per transaction: small enough not to hold locks long
-- repeat: until-zero
SELECT darkroom.prune_jobs(batch_size => :batch_size) AS deleted
