-- Workers heard from within two leases are alive; the rest died or lost the database.
-- job_ids and asset_ids: what each is rendering now; release: its darkroom version (NULL for
-- an older one, which does not say; darkroom.oldest_release_for says which jobs need one);
-- memory_reserved and memory_waiting: bytes of its memory budget its renders hold and jobs
-- waiting for theirs, at its last heartbeat (NULL for an older one).
CREATE OR REPLACE VIEW darkroom.worker_status AS
SELECT w.name, w.host, w.pid, w.started_at, w.last_seen_at,
       w.last_seen_at > now() - make_interval(secs => 2 * w.lease_seconds) AS alive,
       w.stopping, w.running, w.formats, w.release, w.memory_reserved, w.memory_waiting,
       array(SELECT j.id FROM darkroom.jobs AS j WHERE j.state = 'running' AND j.leased_by = w.name ORDER BY j.id) AS job_ids,
       array(SELECT j.asset_id FROM darkroom.jobs AS j WHERE j.state = 'running' AND j.leased_by = w.name ORDER BY j.id) AS asset_ids
  FROM darkroom.workers AS w
 ORDER BY w.name;
