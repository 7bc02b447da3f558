-- job: fuzz
-- does: Queue a full-size re-render of every asset whose look changed since the last successful nightly run (or since :since): its current chain is replayed from the original with the workers' code. Assets that already have a job queued or running are skipped.
-- schedule: daily at 02:00, then `darkroom worker --drain --max-duration 6h` (deploy/systemd/darkroom-nightly.timer, deploy/kubernetes/nightly-cronjob.yaml)
-- param: since timestamptz = -infinity  -- only used before the first successful run (default: everything)
-- param: batch text = nightly  -- the jobs' batch; the run date is appended (nightly-2024-05-01)
-- param: priority int = -10  -- below interactive edits (0), so a big night never starves them
-- One INSERT ... SELECT: one statement, one NOTIFY, however many assets. Prints asset_id, job_id per job.
INSERT INTO darkroom.jobs (asset_id, kind, priority, batch)
SELECT s.id, 'rerender', :priority, :batch || '-' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')
  FROM darkroom.assets AS s
  JOIN darkroom.adjustments AS current ON current.id = s.current_adjustment_id
 WHERE current.created_at >= coalesce(
           (SELECT max(r.started_at) FROM darkroom.job_runs AS r WHERE r.name = 'nightly' AND r.status = 'succeeded'),
           :since)
   AND NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j WHERE j.asset_id = s.id AND j.state IN ('queued', 'running'))
 ORDER BY s.id
RETURNING asset_id, id AS job_id
