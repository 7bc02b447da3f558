-- Every batch with jobs, unfinished ones first, then the newest.
SELECT batch, total, queued, running, succeeded, failed, cancelled, created_at, last_finished_at,
       jobs_per_second::double precision AS rate, extract(epoch FROM eta)::double precision AS eta_seconds
  FROM darkroom.batch_summary ORDER BY queued + running = 0, created_at DESC, batch
