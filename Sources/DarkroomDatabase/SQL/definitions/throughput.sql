-- Jobs that finished in the last hour, by outcome, and the rate (succeeded and failed per
-- second over the hour). One range of jobs_finished_with_state, read from the index alone.
CREATE OR REPLACE VIEW darkroom.throughput AS
SELECT count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE j.state = 'failed') AS failed,
       count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled,
       round(count(*) FILTER (WHERE j.state IN ('succeeded', 'failed')) / 3600.0, 3) AS jobs_per_second
  FROM darkroom.jobs AS j
 WHERE j.state IN ('succeeded', 'failed', 'cancelled') AND j.finished_at > now() - interval '1 hour';
