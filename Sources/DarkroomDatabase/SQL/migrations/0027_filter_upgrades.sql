-- A filter upgrade is a re-render that names the filter and the version it brings (chosen at
-- enqueue time by darkroom.enqueue_filter_rerender, with that version's LUT hash): the worker
-- replays the chain with that filter's older versions rewritten to it
-- (darkroom.upgrade_filter_data). All three or none; only re-renders carry them.
ALTER TABLE darkroom.jobs
    ADD COLUMN IF NOT EXISTS filter_name text,
    ADD COLUMN IF NOT EXISTS filter_version text,
    ADD COLUMN IF NOT EXISTS filter_sha256 text;
ALTER TABLE darkroom.jobs ADD CONSTRAINT jobs_filter_upgrade_shape CHECK (
    (filter_name IS NULL AND filter_version IS NULL AND filter_sha256 IS NULL)
    OR (kind = 'rerender' AND filter_name IS NOT NULL AND filter_version IS NOT NULL
        AND filter_sha256 ~ '^[0-9a-f]{64}$'));
