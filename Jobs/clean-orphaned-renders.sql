-- job: clean-orphaned-renders
-- does: Delete render files of jobs that never produced a result (attempts that crashed, lost their lease, were cancelled or released, then failed or were cancelled for good), unfinished uploads left by crashed attempts, and the files of renditions that were removed (darkroom rendition remove). Files of jobs still queued or running, files younger than :min_age_minutes, and files whose name names no job are kept.
-- schedule: daily at 04:00
-- param: min_age_minutes int = 60  -- must exceed the longest render: a running render's file is younger
-- param: paths text[]  -- filled by the runner: render files older than min_age_minutes, 1000 at a time
-- param: job_ids bigint[]  -- filled by the runner: the job that wrote each file, as the storage layout names it
-- param: temporary boolean[]  -- filled by the runner: whether each file is an unfinished upload
-- files: renders
-- The runner asks the storage layout which job wrote each file (renders/<asset>/<job>.jpg and
-- its other <job>.* outputs) and the storage which files are unfinished uploads; files whose
-- names the layout did not build are never offered. A job that succeeded keeps all its files
-- but its unfinished uploads; its adjustment row keeps its job id even after the job is pruned.
-- A removed rendition's files go whoever wrote them; its records stay (state 'removed'). A file a
-- record names as one of its renditions is kept, whichever job wrote it (a renditions job).
SELECT candidate.path
  FROM unnest(:paths, :job_ids, :temporary) AS candidate(path, job_id, temporary)
 WHERE (NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j WHERE j.id = candidate.job_id AND j.state IN ('queued', 'running'))
        AND NOT EXISTS (SELECT 1 FROM darkroom.adjustments AS a WHERE a.rendered_path = candidate.path)
        -- A renditions job records its files on a layer another job wrote.
        AND NOT EXISTS (SELECT 1 FROM darkroom.adjustment_renditions AS r
                         WHERE r.path = candidate.path AND r.state <> 'removed')
        AND (candidate.temporary OR NOT EXISTS (SELECT 1 FROM darkroom.adjustments AS a WHERE a.job_id = candidate.job_id)))
    OR EXISTS (SELECT 1 FROM darkroom.adjustment_renditions AS r WHERE r.path = candidate.path AND r.state = 'removed')
