-- Per batch: counts by state, progress rate over the last ten minutes, and an ETA.
CREATE OR REPLACE VIEW darkroom.batch_summary AS
SELECT j.batch,
       count(*) AS total,
       count(*) FILTER (WHERE j.state = 'queued') AS queued,
       count(*) FILTER (WHERE j.state = 'running') AS running,
       count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE j.state = 'failed') AS failed,
       count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled,
       min(j.created_at) AS created_at,
       max(j.finished_at) AS last_finished_at,
       round(count(*) FILTER (WHERE j.finished_at > now() - interval '10 minutes'
                                AND j.state IN ('succeeded', 'failed')) / 600.0, 3) AS jobs_per_second,
       CASE WHEN count(*) FILTER (WHERE j.finished_at > now() - interval '10 minutes' AND j.state IN ('succeeded', 'failed')) > 0
            THEN make_interval(secs => round(
                 count(*) FILTER (WHERE j.state IN ('queued', 'running')) * 600.0
                 / count(*) FILTER (WHERE j.finished_at > now() - interval '10 minutes' AND j.state IN ('succeeded', 'failed'))))
       END AS eta
  FROM darkroom.jobs AS j
 WHERE j.batch IS NOT NULL
 GROUP BY j.batch;
