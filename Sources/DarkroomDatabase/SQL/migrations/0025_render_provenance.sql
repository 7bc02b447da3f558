-- Every render says what made it: darkroom's version, each operation's math version, the filter
-- versions and LUT hashes, the output settings (RenderProvenance). NULL for records written
-- before workers kept it: `rerender --stale` counts those as stale.
ALTER TABLE darkroom.adjustments ADD COLUMN IF NOT EXISTS rendered_with jsonb;

-- complete_job takes each layer's rendered_with now; a new argument list is a new function, so
-- drop the old one here and definitions/job_reports.sql creates the new one.
DROP FUNCTION IF EXISTS darkroom.complete_job(bigint, uuid, boolean, bigint, text, text, bigint, text[], text[], bytea[],
                                              text[], int[], int[], bigint[], bigint[], jsonb);
