-- Per batch: counts by state (darkroom.job_counts), progress rate over the last ten minutes,
-- and an ETA. The rate and the last finish read one batch's range of jobs_finished_by_batch.
CREATE OR REPLACE VIEW darkroom.batch_summary AS
WITH counts AS (
    SELECT c.batch,
           sum(c.jobs)::bigint AS total,
           coalesce(sum(c.jobs) FILTER (WHERE c.state = 'queued'), 0)::bigint AS queued,
           coalesce(sum(c.jobs) FILTER (WHERE c.state = 'running'), 0)::bigint AS running,
           coalesce(sum(c.jobs) FILTER (WHERE c.state = 'succeeded'), 0)::bigint AS succeeded,
           coalesce(sum(c.jobs) FILTER (WHERE c.state = 'failed'), 0)::bigint AS failed,
           coalesce(sum(c.jobs) FILTER (WHERE c.state = 'cancelled'), 0)::bigint AS cancelled,
           min(c.first_created_at) AS created_at
      FROM darkroom.job_counts AS c
     WHERE c.batch IS NOT NULL
     GROUP BY c.batch
    HAVING sum(c.jobs) > 0
), progress AS (
    SELECT counts.*,
           (SELECT max(j.finished_at) FROM darkroom.jobs AS j
             WHERE j.batch = counts.batch AND j.state IN ('succeeded', 'failed', 'cancelled')) AS last_finished_at,
           (SELECT count(*) FROM darkroom.jobs AS j
             WHERE j.batch = counts.batch AND j.state IN ('succeeded', 'failed')
               AND j.finished_at > now() - interval '10 minutes') AS recent
      FROM counts
)
SELECT p.batch, p.total, p.queued, p.running, p.succeeded, p.failed, p.cancelled, p.created_at, p.last_finished_at,
       round(p.recent / 600.0, 3) AS jobs_per_second,
       CASE WHEN p.recent > 0 THEN make_interval(secs => round((p.queued + p.running) * 600.0 / p.recent)) END AS eta
  FROM progress AS p;
