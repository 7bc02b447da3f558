-- Queued jobs per kind, format and version, from darkroom.job_counts (kept by job_counts.sql):
-- what the overview's "waiting for a newer editor" (waiting_for_editor.sql) reads with a
-- million jobs queued, without counting them.
CREATE OR REPLACE VIEW darkroom.queued_job_formats AS
SELECT c.kind, c.format_identifier, c.format_version, min(c.format_version_sort) AS format_version_sort, sum(c.jobs)::bigint AS jobs
  FROM darkroom.job_counts AS c
 WHERE c.state = 'queued' AND c.kind IS NOT NULL
 GROUP BY c.kind, c.format_identifier, c.format_version
HAVING sum(c.jobs) <> 0;
