-- Library figures kept as adjustments are recorded (definitions/library_counts.sql), so that the
-- overview's stale count, the dry runs and a roll-out's look-up cost the same at 10 million
-- assets as at a thousand, instead of a walk of every chain.

-- What decides whether an asset's render is stale against a build, read from its current
-- chain (darkroom.chain_states writes it): the operations and math versions its layers used,
-- their output settings, whether one went unrecorded, and the renditions its top layer wrote.
-- Assets rendered alike share one; a library has a few of them, not one per asset.
CREATE TABLE IF NOT EXISTS darkroom.render_fingerprints (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fingerprint jsonb NOT NULL CONSTRAINT render_fingerprints_unique UNIQUE
);

-- Each asset that shows a layer, with its fingerprint. Kept by the triggers of
-- definitions/library_counts.sql, not by a foreign key: deleting an asset must count it out.
CREATE TABLE IF NOT EXISTS darkroom.asset_render_states (
    asset_id       bigint PRIMARY KEY,
    fingerprint_id bigint NOT NULL REFERENCES darkroom.render_fingerprints
);
CREATE INDEX IF NOT EXISTS asset_render_states_by_fingerprint ON darkroom.asset_render_states (fingerprint_id);

-- The filter versions each asset's current chain uses (any layer), from adjustment_filters:
-- what a filter roll-out queues, found by index rather than by walking every chain.
CREATE TABLE IF NOT EXISTS darkroom.asset_filter_versions (
    asset_id bigint NOT NULL,
    name     text NOT NULL,
    version  text NOT NULL,
    PRIMARY KEY (asset_id, name, version)
);
CREATE INDEX IF NOT EXISTS asset_filter_versions_by_filter ON darkroom.asset_filter_versions (name, version);

-- How many assets have each fingerprint and show each filter version, as changes: a change
-- only inserts (+1 for the new, -1 for the old), so workers recording at once never wait on one
-- counter row; darkroom.fold_library_counts merges them into one row per key now and then.
-- A count is the sum of its key's rows.
CREATE TABLE IF NOT EXISTS darkroom.library_counts (
    fingerprint_id bigint REFERENCES darkroom.render_fingerprints,
    filter_name    text,
    filter_version text,
    assets         bigint NOT NULL,
    CONSTRAINT library_counts_one_key CHECK (
        (fingerprint_id IS NOT NULL AND filter_name IS NULL AND filter_version IS NULL)
        OR (fingerprint_id IS NULL AND filter_name IS NOT NULL AND filter_version IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS library_counts_by_filter ON darkroom.library_counts (filter_name, filter_version)
    WHERE filter_name IS NOT NULL;

-- How often changes are folded (darkroom.refresh_library_counts draws from it).
CREATE SEQUENCE IF NOT EXISTS darkroom.library_count_changes;

-- The scope now reads asset_filter_versions and takes no asset list.
DROP FUNCTION IF EXISTS darkroom.filter_rerender_scope(text, text, bigint[]);
DROP FUNCTION IF EXISTS darkroom.stale_renders(jsonb, bigint[]);
