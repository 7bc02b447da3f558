-- edit:        format_identifier/format_version/data are the adjustment to apply.
-- revert:      back to the original (PhotoKit's revert); no format columns.
-- revert_last: drop the top layer of the current chain, re-render the rest; no format columns.
-- rerender:    replay the current chain from the original with the worker's code, writing
--              every layer at its editor's current version. format_identifier (optional)
--              names the upgraded editor; format_version (optional) is the version the
--              re-render must reach, so only workers writing at least that version claim it.
ALTER TABLE darkroom.jobs
    ALTER COLUMN format_identifier DROP NOT NULL,
    ALTER COLUMN format_version DROP NOT NULL,
    ALTER COLUMN data DROP NOT NULL,
    -- What a job that succeeded without a new adjustment did (a revert, a no-op re-render).
    ADD COLUMN IF NOT EXISTS outcome text;

ALTER TABLE darkroom.jobs
    DROP CONSTRAINT IF EXISTS jobs_format_identifier_is_reverse_dns,
    DROP CONSTRAINT IF EXISTS jobs_format_version_is_semver,
    DROP CONSTRAINT IF EXISTS jobs_adjustment_iff_succeeded,
    DROP CONSTRAINT IF EXISTS jobs_kind_is_known,
    DROP CONSTRAINT IF EXISTS jobs_kind_shape,
    DROP CONSTRAINT IF EXISTS jobs_adjustment_only_when_succeeded,
    DROP CONSTRAINT IF EXISTS jobs_edit_succeeds_with_adjustment;
ALTER TABLE darkroom.jobs
    ADD CONSTRAINT jobs_format_identifier_is_reverse_dns
        CHECK (format_identifier IS NULL OR darkroom.reverse_dns_problem(format_identifier) IS NULL),
    ADD CONSTRAINT jobs_format_version_is_semver
        CHECK (format_version IS NULL OR darkroom.semver_problem(format_version) IS NULL),
    ADD CONSTRAINT jobs_kind_is_known CHECK (kind IN ('edit', 'revert', 'revert_last', 'rerender')),
    ADD CONSTRAINT jobs_kind_shape CHECK (CASE kind
        WHEN 'edit' THEN format_identifier IS NOT NULL AND format_version IS NOT NULL AND data IS NOT NULL
        WHEN 'rerender' THEN data IS NULL AND (format_version IS NULL OR format_identifier IS NOT NULL)
        ELSE format_identifier IS NULL AND format_version IS NULL AND data IS NULL END),
    -- adjustment_id is the top layer a job recorded: only once it succeeded, always for an edit.
    ADD CONSTRAINT jobs_adjustment_only_when_succeeded CHECK (adjustment_id IS NULL OR state = 'succeeded'),
    ADD CONSTRAINT jobs_edit_succeeds_with_adjustment
        CHECK (kind <> 'edit' OR state <> 'succeeded' OR adjustment_id IS NOT NULL);

-- A replayed layer names the layer it re-renders (same edit, current code and version).
ALTER TABLE darkroom.adjustments ADD COLUMN IF NOT EXISTS rerender_of bigint;

-- How each asset's current look changed, oldest first: never updated, removed only with
-- the asset. adjustment_id NULL means the original.
CREATE TABLE IF NOT EXISTS darkroom.asset_history (
    id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    asset_id                bigint NOT NULL REFERENCES darkroom.assets ON DELETE CASCADE,
    job_id                  bigint,   -- a plain number: jobs are pruned, history is not
    action                  text NOT NULL CHECK (action IN ('edit', 'revert', 'revert_last', 'rerender')),
    adjustment_id           bigint,
    previous_adjustment_id  bigint,
    at                      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT asset_history_adjustment_same_asset FOREIGN KEY (adjustment_id, asset_id)
        REFERENCES darkroom.adjustments (id, asset_id) DEFERRABLE INITIALLY DEFERRED,
    CONSTRAINT asset_history_previous_same_asset FOREIGN KEY (previous_adjustment_id, asset_id)
        REFERENCES darkroom.adjustments (id, asset_id) DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX IF NOT EXISTS asset_history_by_asset ON darkroom.asset_history (asset_id, id);

-- Edits recorded before this migration, so every asset's history starts complete.
INSERT INTO darkroom.asset_history (asset_id, job_id, action, adjustment_id, previous_adjustment_id, at)
SELECT a.asset_id, a.job_id, 'edit', a.id,
       lag(a.id) OVER (PARTITION BY a.asset_id ORDER BY a.id), a.created_at
  FROM darkroom.adjustments AS a
 WHERE NOT EXISTS (SELECT 1 FROM darkroom.asset_history)
 ORDER BY a.id;

-- Open jobs by asset, for the per-asset order in claim_jobs.
CREATE INDEX IF NOT EXISTS jobs_open_by_asset ON darkroom.jobs (asset_id, id) WHERE state IN ('queued', 'running');
