-- The batches with jobs queued or running, by name (the queue's gauges).
SELECT batch, total, queued, running, succeeded, failed, cancelled, created_at, last_finished_at,
       jobs_per_second::double precision AS rate, extract(epoch FROM eta)::double precision AS eta_seconds
  FROM darkroom.batch_summary WHERE queued + running > 0 ORDER BY batch
