-- Tables, constraints and indexes. The validators the CHECK constraints call
-- (definitions/identifiers.sql, definitions/semver.sql) are applied before any migration.

-- One row per distinct photo file. Width and height are as stored, before orientation.
CREATE TABLE IF NOT EXISTS darkroom.assets (
    id                    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    original_path         text NOT NULL,
    content_sha256        text NOT NULL,
    byte_size             bigint NOT NULL,
    pixel_width           int NOT NULL,
    pixel_height          int NOT NULL,
    orientation           int NOT NULL DEFAULT 1,
    latitude              double precision,
    longitude             double precision,
    altitude              double precision,
    creation_date         timestamptz,
    current_adjustment_id bigint,
    metadata_warnings     text,   -- one warning per line
    imported_at           timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT assets_content_sha256_unique UNIQUE (content_sha256),
    CONSTRAINT assets_content_sha256_is_lowercase_hex CHECK (content_sha256 ~ '^[0-9a-f]{64}$'),
    CONSTRAINT assets_byte_size_not_negative CHECK (byte_size >= 0),
    CONSTRAINT assets_pixel_size_positive CHECK (pixel_width > 0 AND pixel_height > 0),
    CONSTRAINT assets_orientation_is_exif CHECK (orientation BETWEEN 1 AND 8),
    CONSTRAINT assets_latitude_in_range CHECK (latitude BETWEEN -90 AND 90),
    CONSTRAINT assets_longitude_in_range CHECK (longitude BETWEEN -180 AND 180)
);

CREATE TABLE IF NOT EXISTS darkroom.jobs (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    asset_id          bigint NOT NULL REFERENCES darkroom.assets ON DELETE CASCADE,
    kind              text NOT NULL DEFAULT 'edit',
    state             text NOT NULL DEFAULT 'queued',
    format_identifier text NOT NULL,
    format_version    text NOT NULL,
    data              bytea NOT NULL,
    priority          int NOT NULL DEFAULT 0,
    run_at            timestamptz NOT NULL DEFAULT now(),
    attempts          int NOT NULL DEFAULT 0,
    max_attempts      int NOT NULL DEFAULT 5,
    last_error        text,
    errors            jsonb NOT NULL DEFAULT '[]',  -- [{attempt, at, code, message, worker}]
    batch             text,
    lease_token       uuid,
    leased_by         text,   -- kept after the lease ends: the last worker to run the job
    lease_expires_at  timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    started_at        timestamptz,
    finished_at       timestamptz,
    adjustment_id     bigint,
    CONSTRAINT jobs_state_is_known CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    CONSTRAINT jobs_attempts_in_range CHECK (attempts >= 0 AND max_attempts >= 1),
    CONSTRAINT jobs_errors_is_array CHECK (jsonb_typeof(errors) = 'array'),
    CONSTRAINT jobs_format_identifier_is_reverse_dns CHECK (darkroom.reverse_dns_problem(format_identifier) IS NULL),
    CONSTRAINT jobs_format_version_is_semver CHECK (darkroom.semver_problem(format_version) IS NULL),
    CONSTRAINT jobs_data_at_most_1_mib CHECK (octet_length(data) <= 1048576),
    -- A lease exists exactly while a worker runs the job, so a stale worker can always be told apart.
    CONSTRAINT jobs_lease_only_while_running CHECK (CASE WHEN state = 'running'
        THEN lease_token IS NOT NULL AND leased_by IS NOT NULL AND lease_expires_at IS NOT NULL
        ELSE lease_token IS NULL AND lease_expires_at IS NULL END),
    CONSTRAINT jobs_adjustment_iff_succeeded CHECK ((state = 'succeeded') = (adjustment_id IS NOT NULL))
);

-- Append-only history of edits; each finished job contributes exactly one row.
CREATE TABLE IF NOT EXISTS darkroom.adjustments (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    asset_id           bigint NOT NULL REFERENCES darkroom.assets ON DELETE CASCADE,
    -- Deferred so that deleting an asset can cascade to its jobs and adjustments in either order.
    job_id             bigint REFERENCES darkroom.jobs DEFERRABLE INITIALLY DEFERRED,
    format_identifier  text NOT NULL,
    format_version     text NOT NULL,
    data               bytea NOT NULL,
    base_adjustment_id bigint,
    rendered_path      text NOT NULL,
    rendered_width     int NOT NULL,
    rendered_height    int NOT NULL,
    rendered_bytes     bigint NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT adjustments_id_asset_unique UNIQUE (id, asset_id),
    CONSTRAINT adjustments_base_same_asset FOREIGN KEY (base_adjustment_id, asset_id)
        REFERENCES darkroom.adjustments (id, asset_id),
    CONSTRAINT adjustments_format_identifier_is_reverse_dns CHECK (darkroom.reverse_dns_problem(format_identifier) IS NULL),
    CONSTRAINT adjustments_format_version_is_semver CHECK (darkroom.semver_problem(format_version) IS NULL),
    CONSTRAINT adjustments_rendered_size_positive CHECK (rendered_width > 0 AND rendered_height > 0 AND rendered_bytes >= 0)
);

-- The circular references are added once both tables exist. Composite keys make sure an
-- asset's current adjustment, and a job's result, belong to that same asset.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'assets_current_adjustment_same_asset') THEN
        ALTER TABLE darkroom.assets ADD CONSTRAINT assets_current_adjustment_same_asset
            FOREIGN KEY (current_adjustment_id, id) REFERENCES darkroom.adjustments (id, asset_id);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'jobs_adjustment_same_asset') THEN
        ALTER TABLE darkroom.jobs ADD CONSTRAINT jobs_adjustment_same_asset
            FOREIGN KEY (adjustment_id, asset_id) REFERENCES darkroom.adjustments (id, asset_id)
            DEFERRABLE INITIALLY DEFERRED;
    END IF;
END $$;

-- Claiming reads this index in order and stops after LIMIT rows.
CREATE INDEX IF NOT EXISTS jobs_claim_order ON darkroom.jobs (priority DESC, run_at, id) WHERE state = 'queued';
CREATE INDEX IF NOT EXISTS jobs_expiring_leases ON darkroom.jobs (lease_expires_at) WHERE state = 'running';
CREATE INDEX IF NOT EXISTS jobs_recent_failures ON darkroom.jobs (finished_at DESC, id DESC) WHERE state = 'failed';
CREATE INDEX IF NOT EXISTS jobs_by_asset ON darkroom.jobs (asset_id);
CREATE UNIQUE INDEX IF NOT EXISTS adjustments_one_per_job ON darkroom.adjustments (job_id) WHERE job_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS adjustments_by_asset ON darkroom.adjustments (asset_id, id);
