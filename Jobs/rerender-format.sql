-- job: rerender-format
-- does: After an editor upgrade, queue a re-render of every asset whose current adjustment uses :format_identifier below :below_version, so it is rendered again with the new code; assets with a job already queued or running for that format are skipped.
-- schedule: on demand, after deploying workers with the new editor
-- param: format_identifier text  -- e.g. io.darkroom.pipeline
-- param: below_version text  -- e.g. 1.1.0: adjustments written by older versions are re-rendered
-- param: batch text = rerender  -- the jobs' batch, for darkroom.batch_summary and retry-batch
-- param: priority int = -20  -- below nightly runs and interactive edits
-- Prints asset_id, job_id per queued job.
INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version, data, priority, batch)
SELECT s.id, 'edit', current.format_identifier, current.format_version, current.data, :priority, :batch
  FROM darkroom.assets AS s
  JOIN darkroom.adjustments AS current ON current.id = s.current_adjustment_id
 WHERE current.format_identifier = darkroom.require_reverse_dns(:format_identifier)
   AND darkroom.semver_sort_key(current.format_version) < darkroom.semver_sort_key(darkroom.require_semver(:below_version))
   AND NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j
                    WHERE j.asset_id = s.id AND j.format_identifier = current.format_identifier
                      AND j.state IN ('queued', 'running'))
 ORDER BY s.id
RETURNING asset_id, id AS job_id
