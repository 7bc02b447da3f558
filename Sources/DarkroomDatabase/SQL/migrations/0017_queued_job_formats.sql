-- What the overview's "waiting for a newer editor" reads with a million jobs queued, without
-- asking can_run of each: queued jobs counted per kind, format and version as they change, an
-- index for the oldest job of one such group, and one to find the assets showing a layer of a
-- given format and version.

-- Delta rows, as darkroom.job_counts (0015): each statement that adds, removes or moves queued
-- jobs appends one row per group it changed (definitions/queued_job_formats.sql); nothing is
-- updated, so workers never wait on each other here; compact_queued_job_formats() folds them.
-- The counts are sum(jobs) per group.
CREATE TABLE IF NOT EXISTS darkroom.queued_job_formats (
    kind                text NOT NULL,
    format_identifier   text,            -- NULL for reverts and whole-chain re-renders
    format_version      text,
    format_version_sort text COLLATE "C",
    jobs                bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS queued_job_formats_by_group
    ON darkroom.queued_job_formats (kind, format_identifier, format_version);

INSERT INTO darkroom.queued_job_formats (kind, format_identifier, format_version, format_version_sort, jobs)
SELECT j.kind, j.format_identifier, j.format_version, j.format_version_sort, count(*)
  FROM darkroom.jobs AS j WHERE j.state = 'queued'
 GROUP BY j.kind, j.format_identifier, j.format_version, j.format_version_sort;

-- The oldest queued job of one group (coalesce: reverts have no format, and = finds no NULL).
CREATE INDEX IF NOT EXISTS jobs_queued_by_format ON darkroom.jobs
    (kind, coalesce(format_identifier, ''), coalesce(format_version, ''), created_at) WHERE state = 'queued';
-- The distinct layer formats and versions (a skip scan), and the assets showing one of them.
CREATE INDEX IF NOT EXISTS adjustments_by_format ON darkroom.adjustments (format_identifier, format_version, asset_id);
