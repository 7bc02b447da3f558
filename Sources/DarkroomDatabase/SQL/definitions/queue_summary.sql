-- Every state appears, with 0 when no job is in it.
CREATE OR REPLACE VIEW darkroom.queue_summary AS
SELECT s.state, count(j.id) AS count, min(j.run_at) AS oldest_run_at
  FROM unnest(ARRAY['queued', 'running', 'succeeded', 'failed', 'cancelled']) WITH ORDINALITY AS s(state, ordinal)
  LEFT JOIN darkroom.jobs AS j ON j.state = s.state
 GROUP BY s.state, s.ordinal
 ORDER BY s.ordinal;
