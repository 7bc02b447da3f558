-- Every worker that reported in and is not yet forgotten, one row per job it holds (or one
-- with no job): `darkroom status`, the dashboard and the queue's gauges (JobQueue.workers).
SELECT w.name, w.host, w.pid, w.started_at, w.last_seen_at, w.alive, w.stopping, w.running,
       w.memory_reserved, w.memory_waiting,
       greatest(extract(epoch FROM now() - w.last_seen_at), 0)::double precision AS silent_seconds,
       r.job_id, r.asset_id
  FROM darkroom.worker_status AS w
  LEFT JOIN LATERAL unnest(w.job_ids, w.asset_ids) WITH ORDINALITY AS r(job_id, asset_id, n) ON true
 ORDER BY w.name, r.n
