-- Workers heard from within two leases are alive; the rest died or lost the database.
CREATE OR REPLACE VIEW darkroom.worker_status AS
SELECT w.name, w.host, w.pid, w.started_at, w.last_seen_at,
       w.last_seen_at > now() - make_interval(secs => 2 * w.lease_seconds) AS alive,
       w.stopping, w.running, w.formats
  FROM darkroom.workers AS w
 ORDER BY w.name;
