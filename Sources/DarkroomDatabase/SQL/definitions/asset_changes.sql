-- Reads of the catalogue for those who may read views only (the viewer and operator roles):
-- an asset's changes, its jobs, and what a batch's succeeded jobs changed. Each is one table
-- (or one join) unchanged, so a WHERE on its key still reads the table's index.
CREATE OR REPLACE VIEW darkroom.asset_changes AS
SELECT h.id, h.asset_id, h.job_id, h.action, h.adjustment_id, h.previous_adjustment_id, h.at
  FROM darkroom.asset_history AS h;

-- can_cancel and can_retry: whether cancel_job and retry_job would act on the job now.
CREATE OR REPLACE VIEW darkroom.asset_jobs AS
SELECT j.id, j.asset_id, j.kind, j.state, j.batch, j.format_identifier, j.format_version, j.created_at, j.finished_at,
       darkroom.job_can_be_cancelled(j.state) AS can_cancel, darkroom.job_can_be_retried(j.state) AS can_retry
  FROM darkroom.jobs AS j;

-- One row per succeeded job of a batch: what the asset showed before (NULL: the original) and after.
CREATE OR REPLACE VIEW darkroom.batch_changes AS
SELECT j.batch, j.finished_at, h.asset_id, h.job_id, h.action, h.previous_adjustment_id, h.adjustment_id, h.at
  FROM darkroom.jobs AS j
  JOIN darkroom.asset_history AS h ON h.asset_id = j.asset_id AND h.job_id = j.id
 WHERE j.state = 'succeeded' AND j.batch IS NOT NULL;
