-- job: clean-orphaned-renders
-- does: Delete render files of jobs that never produced a result (attempts that crashed, lost their lease, were cancelled or released, then failed or were cancelled for good) and temporary .partial files left by crashed attempts. Files of jobs still queued or running, files younger than :min_age_minutes, and files whose name names no job are kept.
-- schedule: daily at 04:00
-- param: min_age_minutes int = 60  -- must exceed the longest render: a running render's file is younger
-- param: paths text[]  -- filled by the runner: render files older than min_age_minutes, 1000 at a time
-- files: renders
-- Render files are renders/<asset>/<job>.jpg (and other <job>.* outputs); temporary ones
-- .<job>.jpg.<suffix>.partial beside them. A job that succeeded keeps all its files but its
-- temporary ones; its adjustment row keeps its job id even after the job is pruned.
SELECT candidate.path
  FROM unnest(:paths) AS candidate(path)
 CROSS JOIN LATERAL (
      SELECT substring(candidate.path FROM '^renders/[0-9]+/\.?([0-9]+)\.')::bigint AS job_id,
             candidate.path ~ '/\.[^/]*\.partial$' AS temporary
 ) AS parsed
 WHERE parsed.job_id IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j WHERE j.id = parsed.job_id AND j.state IN ('queued', 'running'))
   AND NOT EXISTS (SELECT 1 FROM darkroom.adjustments AS a WHERE a.rendered_path = candidate.path)
   AND (parsed.temporary OR NOT EXISTS (SELECT 1 FROM darkroom.adjustments AS a WHERE a.job_id = parsed.job_id))
