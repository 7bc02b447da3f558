-- The rules of jobs, assets and adjustments move from 24 CHECK constraints to the functions
-- of definitions/row_rules.sql: PostgreSQL plans and evaluates every CHECK of a table for each
-- statement that writes it, and each claim and completion writes these tables
-- (docs/queue-performance.md). What changes as a job runs and every adjustment record keep one
-- CHECK each; what a job asks for and an asset's facts are checked by triggers when they are
-- written (definitions/row_rule_triggers.sql). The rules are the same; a broken one still
-- raises check_violation with the old constraint's name.
-- The CHECKs are added NOT VALID, then validated, each in a block of its own: a row that
-- predates a rule the old constraints did not enforce yet (0012 and 0013 added theirs NOT
-- VALID) leaves that constraint NOT VALID with a notice rather than stopping the migration;
-- fix the row, then ALTER TABLE … VALIDATE CONSTRAINT. An original outside the storage root,
-- which 0013 could only leave NOT VALID too, is reported the same way.
ALTER TABLE darkroom.jobs
    DROP CONSTRAINT IF EXISTS jobs_state_is_known,
    DROP CONSTRAINT IF EXISTS jobs_attempts_in_range,
    DROP CONSTRAINT IF EXISTS jobs_errors_is_array,
    DROP CONSTRAINT IF EXISTS jobs_format_identifier_is_reverse_dns,
    DROP CONSTRAINT IF EXISTS jobs_format_version_is_semver,
    DROP CONSTRAINT IF EXISTS jobs_data_at_most_1_mib,
    DROP CONSTRAINT IF EXISTS jobs_lease_only_while_running,
    DROP CONSTRAINT IF EXISTS jobs_kind_is_known,
    DROP CONSTRAINT IF EXISTS jobs_kind_shape,
    DROP CONSTRAINT IF EXISTS jobs_adjustment_only_when_succeeded,
    DROP CONSTRAINT IF EXISTS jobs_edit_succeeds_with_adjustment,
    DROP CONSTRAINT IF EXISTS jobs_warnings_is_array,
    ADD CONSTRAINT jobs_row_rules CHECK (darkroom.job_row_is_valid(
        kind, state, attempts, max_attempts, errors, warnings, lease_token, leased_by, lease_expires_at, adjustment_id)) NOT VALID;

ALTER TABLE darkroom.assets
    DROP CONSTRAINT IF EXISTS assets_content_sha256_is_lowercase_hex,
    DROP CONSTRAINT IF EXISTS assets_byte_size_not_negative,
    DROP CONSTRAINT IF EXISTS assets_pixel_size_positive,
    DROP CONSTRAINT IF EXISTS assets_orientation_is_exif,
    DROP CONSTRAINT IF EXISTS assets_latitude_in_range,
    DROP CONSTRAINT IF EXISTS assets_longitude_in_range,
    DROP CONSTRAINT IF EXISTS assets_original_path_in_storage;

ALTER TABLE darkroom.adjustments
    DROP CONSTRAINT IF EXISTS adjustments_format_identifier_is_reverse_dns,
    DROP CONSTRAINT IF EXISTS adjustments_format_version_is_semver,
    DROP CONSTRAINT IF EXISTS adjustments_rendered_size_positive,
    DROP CONSTRAINT IF EXISTS adjustments_warnings_is_array,
    DROP CONSTRAINT IF EXISTS adjustments_rendered_path_in_storage,
    ADD CONSTRAINT adjustments_row_rules CHECK (darkroom.adjustment_row_is_valid(
        format_identifier, format_version, rendered_path, rendered_width, rendered_height, rendered_bytes, warnings)) NOT VALID;

DO $$
DECLARE
    constrained text[];
BEGIN
    FOREACH constrained SLICE 1 IN ARRAY ARRAY[['jobs', 'jobs_row_rules'], ['adjustments', 'adjustments_row_rules']] LOOP
        BEGIN
            EXECUTE format('ALTER TABLE darkroom.%I VALIDATE CONSTRAINT %I', constrained[1], constrained[2]);
        EXCEPTION WHEN check_violation THEN
            RAISE NOTICE 'darkroom.% keeps % NOT VALID: a stored row breaks it (%); fix the row, then VALIDATE CONSTRAINT',
                constrained[1], constrained[2], SQLERRM;
        END;
    END LOOP;
    IF EXISTS (SELECT 1 FROM darkroom.assets AS a WHERE NOT darkroom.is_stored_path(a.original_path)) THEN
        RAISE NOTICE 'darkroom.assets holds originals outside the storage root (SELECT id, original_path FROM darkroom.assets WHERE NOT darkroom.is_stored_path(original_path)); move them';
    END IF;
END $$;
