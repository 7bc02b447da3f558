-- One table of job counts instead of two: darkroom.job_counts is now kept per batch, state,
-- kind, format and version, and the queued jobs per format (0017's queued_job_formats table)
-- become a view over its queued rows (definitions/queued_job_formats.sql). Every claim and
-- completion ran two statement triggers, one per table; the one that is left appends one set
-- of delta rows per statement, half the work on the queue's hot path
-- (docs/queue-performance.md).
LOCK TABLE darkroom.jobs IN SHARE ROW EXCLUSIVE MODE;

DROP TRIGGER IF EXISTS jobs_count_added_queued_formats ON darkroom.jobs;
DROP TRIGGER IF EXISTS jobs_count_removed_queued_formats ON darkroom.jobs;
DROP TRIGGER IF EXISTS jobs_count_moved_queued_formats ON darkroom.jobs;
DROP TRIGGER IF EXISTS jobs_count_truncated_queued_formats ON darkroom.jobs;
DROP FUNCTION IF EXISTS darkroom.count_added_queued_formats();
DROP FUNCTION IF EXISTS darkroom.count_removed_queued_formats();
DROP FUNCTION IF EXISTS darkroom.count_moved_queued_formats();
DROP FUNCTION IF EXISTS darkroom.count_truncated_queued_formats();
DROP FUNCTION IF EXISTS darkroom.compact_queued_job_formats();
DROP TABLE IF EXISTS darkroom.queued_job_formats;

ALTER TABLE darkroom.job_counts
    ADD COLUMN IF NOT EXISTS kind text,               -- NULL only in rows that just remember first_created_at
    ADD COLUMN IF NOT EXISTS format_identifier text,  -- NULL for reverts and whole-chain re-renders
    ADD COLUMN IF NOT EXISTS format_version text,
    ADD COLUMN IF NOT EXISTS format_version_sort text COLLATE "C";
DROP INDEX IF EXISTS darkroom.job_counts_by_key;
CREATE INDEX IF NOT EXISTS job_counts_by_key ON darkroom.job_counts (batch, state, kind, format_identifier, format_version);

-- Counted again from the jobs, per the new key. A batch whose jobs were pruned keeps, in a
-- row of zero jobs, when it was first queued.
CREATE TEMPORARY TABLE remembered ON COMMIT DROP AS
SELECT c.batch, c.state, min(c.first_created_at) AS first_created_at
  FROM darkroom.job_counts AS c WHERE c.first_created_at IS NOT NULL GROUP BY c.batch, c.state;
DELETE FROM darkroom.job_counts;
INSERT INTO darkroom.job_counts (batch, state, kind, format_identifier, format_version, format_version_sort, jobs, first_created_at)
SELECT j.batch, j.state, j.kind, j.format_identifier, j.format_version, j.format_version_sort, count(*), min(j.created_at)
  FROM darkroom.jobs AS j
 GROUP BY j.batch, j.state, j.kind, j.format_identifier, j.format_version, j.format_version_sort;
INSERT INTO darkroom.job_counts (batch, state, jobs, first_created_at)
SELECT r.batch, r.state, 0, r.first_created_at FROM remembered AS r;
