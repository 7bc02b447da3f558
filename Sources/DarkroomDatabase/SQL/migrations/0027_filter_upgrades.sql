-- A filter upgrade is a re-render that names the filter and the version it brings (chosen at
-- enqueue time by darkroom.enqueue_filter_rerender, with that version's LUT hash): the worker
-- replays the chain with that filter's older versions rewritten to it
-- (darkroom.upgrade_filter_data). All three or none, and only on re-renders: the trigger
-- jobs_filter_upgrade_shape checks it (definitions/filter_upgrades.sql).
ALTER TABLE darkroom.jobs
    ADD COLUMN IF NOT EXISTS filter_name text,
    ADD COLUMN IF NOT EXISTS filter_version text,
    ADD COLUMN IF NOT EXISTS filter_sha256 text;
