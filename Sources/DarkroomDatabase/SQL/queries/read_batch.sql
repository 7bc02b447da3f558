SELECT batch, total, queued, running, succeeded, failed, cancelled, created_at, last_finished_at,
       jobs_per_second::double precision AS rate, extract(epoch FROM eta)::double precision AS eta_seconds
  FROM darkroom.batch_summary WHERE batch = $1
