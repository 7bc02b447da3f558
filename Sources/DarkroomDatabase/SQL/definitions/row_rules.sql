-- What a row of jobs, assets or adjustments must satisfy, whoever writes it. Migration 19
-- replaced their two dozen CHECK constraints with these functions, because PostgreSQL reads
-- every CHECK of a table back from its stored text, plans it and evaluates it for each
-- statement that writes the table, whichever columns it changes: each claimed and completed
-- job paid for 37 of them, a third of the server's work (docs/queue-performance.md).
--  * What changes as a job runs (state, lease, attempts, errors, its adjustment) and every
--    adjustment record: one CHECK constraint each, calling job_row_is_valid and
--    adjustment_row_is_valid.
--  * What is written once (what a job asks for: kind, format, data; an asset's file and
--    facts): row triggers on INSERT and on UPDATE OF exactly those columns
--    (row_rule_triggers.sql), so the queue's updates of a job's state or an asset's current
--    adjustment do not check them again.
-- A broken rule raises check_violation naming the rule (the name of the constraint that held
-- it before migration 19, in the error's constraint field) and what is wrong. Nothing here
-- reads a table, so this file is applied before the migrations. Changing a rule does not
-- re-check stored rows: after tightening a CHECK rule run ALTER TABLE … VALIDATE CONSTRAINT.
-- Each function tests its rules in one expression first (a row that passes costs one
-- evaluation); only a failing row is looked at rule by rule. The conditions are in
-- parentheses because PL/pgSQL ends an IF condition at the first THEN, even inside CASE.

-- Raises the broken rule of a row of table_name (rule NULL: none broken). Returns true.
-- VOLATILE although it reads nothing: the planner folds an IMMUTABLE call with constant
-- arguments ahead of time, and would raise every refusal while planning the CASE around it.
CREATE OR REPLACE FUNCTION darkroom.refuse_row(table_name text, rule text, problem text) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL SAFE AS $$
BEGIN
    IF rule IS NOT NULL THEN
        RAISE EXCEPTION 'new row for darkroom.% breaks rule %: %', table_name, rule, problem
            USING ERRCODE = 'check_violation', SCHEMA = 'darkroom', TABLE = table_name, CONSTRAINT = rule;
    END IF;
    RETURN true;
END $$;

-- A job as it runs (CHECK jobs_row_rules): a known state, a lease exactly while it runs (so
-- a stale worker can always be told apart), an adjustment only once it succeeded and always
-- for an edit that did, attempts in range, errors and warnings as JSON arrays.
CREATE OR REPLACE FUNCTION darkroom.job_row_is_valid(
    kind text, state text, attempts int, max_attempts int, errors jsonb, warnings jsonb,
    lease_token uuid, leased_by text, lease_expires_at timestamptz, adjustment_id bigint
) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')
        AND CASE WHEN state = 'running' THEN lease_token IS NOT NULL AND leased_by IS NOT NULL AND lease_expires_at IS NOT NULL
                 ELSE lease_token IS NULL AND lease_expires_at IS NULL END
        AND (adjustment_id IS NULL OR state = 'succeeded')
        AND (kind <> 'edit' OR state <> 'succeeded' OR adjustment_id IS NOT NULL)
        AND attempts >= 0 AND max_attempts >= 1
        AND jsonb_typeof(errors) = 'array' AND jsonb_typeof(warnings) = 'array') THEN
        RETURN true;
    END IF;
    RETURN CASE
        WHEN state NOT IN ('queued', 'running', 'succeeded', 'failed', 'cancelled') THEN
            darkroom.refuse_row('jobs', 'jobs_state_is_known', format('state %L is not queued, running, succeeded, failed or cancelled', state))
        WHEN NOT CASE WHEN state = 'running' THEN lease_token IS NOT NULL AND leased_by IS NOT NULL AND lease_expires_at IS NOT NULL
                      ELSE lease_token IS NULL AND lease_expires_at IS NULL END THEN
            darkroom.refuse_row('jobs', 'jobs_lease_only_while_running',
                format('a %s job %s', state, CASE WHEN state = 'running' THEN 'needs lease_token, leased_by and lease_expires_at'
                                                ELSE 'has no lease_token or lease_expires_at' END))
        WHEN adjustment_id IS NOT NULL AND state <> 'succeeded' THEN
            darkroom.refuse_row('jobs', 'jobs_adjustment_only_when_succeeded', format('a %s job has no adjustment', state))
        WHEN kind = 'edit' AND state = 'succeeded' AND adjustment_id IS NULL THEN
            darkroom.refuse_row('jobs', 'jobs_edit_succeeds_with_adjustment', 'a succeeded edit records its adjustment')
        WHEN attempts < 0 OR max_attempts < 1 THEN
            darkroom.refuse_row('jobs', 'jobs_attempts_in_range', format('attempts (%s) must be 0 or more and max_attempts (%s) 1 or more', attempts, max_attempts))
        WHEN jsonb_typeof(errors) <> 'array' THEN
            darkroom.refuse_row('jobs', 'jobs_errors_is_array', 'errors must be a JSON array')
        WHEN jsonb_typeof(warnings) <> 'array' THEN
            darkroom.refuse_row('jobs', 'jobs_warnings_is_array', 'warnings must be a JSON array')
        ELSE true
    END;
END $$;

-- What a job asks for (trigger jobs_request_rules): a known kind with the fields it needs, a
-- reverse-DNS format identifier, a semantic version, at most 1 MiB of data.
CREATE OR REPLACE FUNCTION darkroom.job_request_is_valid(
    kind text, format_identifier text, format_version text, data_bytes int
) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF (CASE kind
            WHEN 'edit' THEN format_identifier IS NOT NULL AND format_version IS NOT NULL AND data_bytes IS NOT NULL
            WHEN 'rerender' THEN data_bytes IS NULL AND (format_version IS NULL OR format_identifier IS NOT NULL)
            WHEN 'revert' THEN format_identifier IS NULL AND format_version IS NULL AND data_bytes IS NULL
            WHEN 'revert_last' THEN format_identifier IS NULL AND format_version IS NULL AND data_bytes IS NULL
            WHEN 'renditions' THEN format_identifier IS NULL AND format_version IS NULL AND data_bytes IS NULL END
        AND (format_identifier IS NULL OR darkroom.is_reverse_dns(format_identifier))
        AND (format_version IS NULL OR darkroom.is_semver(format_version))
        AND coalesce(data_bytes <= 1048576, true)) THEN
        RETURN true;
    END IF;
    RETURN CASE
        WHEN kind NOT IN ('edit', 'revert', 'revert_last', 'rerender', 'renditions') THEN
            darkroom.refuse_row('jobs', 'jobs_kind_is_known',
                format('kind %L is not edit, revert, revert_last, rerender or renditions', kind))
        WHEN NOT CASE kind
                 WHEN 'edit' THEN format_identifier IS NOT NULL AND format_version IS NOT NULL AND data_bytes IS NOT NULL
                 WHEN 'rerender' THEN data_bytes IS NULL AND (format_version IS NULL OR format_identifier IS NOT NULL)
                 ELSE format_identifier IS NULL AND format_version IS NULL AND data_bytes IS NULL END THEN
            darkroom.refuse_row('jobs', 'jobs_kind_shape', format('a job of kind %s needs %s', kind, CASE kind
                WHEN 'edit' THEN 'a format identifier, a format version and data'
                WHEN 'rerender' THEN 'no data, and a format identifier with any format version'
                ELSE 'no format identifier, format version or data' END))
        WHEN format_identifier IS NOT NULL AND darkroom.reverse_dns_problem(format_identifier) IS NOT NULL THEN
            darkroom.refuse_row('jobs', 'jobs_format_identifier_is_reverse_dns',
                format('format identifier %L: %s', format_identifier, darkroom.reverse_dns_problem(format_identifier)))
        WHEN format_version IS NOT NULL AND darkroom.semver_problem(format_version) IS NOT NULL THEN
            darkroom.refuse_row('jobs', 'jobs_format_version_is_semver',
                format('format version %L: %s', format_version, darkroom.semver_problem(format_version)))
        WHEN data_bytes > 1048576 THEN
            darkroom.refuse_row('jobs', 'jobs_data_at_most_1_mib', format('data is %s bytes; the limit is 1 MiB', data_bytes))
        ELSE true
    END;
END $$;

CREATE OR REPLACE FUNCTION darkroom.check_job_request() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM darkroom.job_request_is_valid(NEW.kind, NEW.format_identifier, NEW.format_version, octet_length(NEW.data));
    RETURN NEW;
END $$;

-- An asset (trigger assets_rules): a stored original inside the storage root, its SHA-256 in
-- lowercase hex, sizes, an EXIF orientation, a location on the globe, and the name of its
-- date's source as short as a name.
CREATE OR REPLACE FUNCTION darkroom.asset_row_is_valid(
    original_path text, content_sha256 text, byte_size bigint, pixel_width int, pixel_height int,
    orientation int, latitude double precision, longitude double precision, creation_date_source text
) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF (content_sha256 ~ '^[0-9a-f]{64}$' AND byte_size >= 0 AND pixel_width > 0 AND pixel_height > 0
        AND orientation BETWEEN 1 AND 8 AND coalesce(latitude BETWEEN -90 AND 90, true)
        AND coalesce(longitude BETWEEN -180 AND 180, true)
        AND coalesce(length(creation_date_source) BETWEEN 1 AND 256, true)
        AND darkroom.is_stored_path(original_path)) THEN
        RETURN true;
    END IF;
    RETURN CASE
        WHEN content_sha256 !~ '^[0-9a-f]{64}$' THEN
            darkroom.refuse_row('assets', 'assets_content_sha256_is_lowercase_hex', format('content_sha256 %L is not 64 lowercase hex digits', content_sha256))
        WHEN byte_size < 0 THEN
            darkroom.refuse_row('assets', 'assets_byte_size_not_negative', format('byte_size %s is negative', byte_size))
        WHEN pixel_width <= 0 OR pixel_height <= 0 THEN
            darkroom.refuse_row('assets', 'assets_pixel_size_positive', format('pixel size %s × %s is not positive', pixel_width, pixel_height))
        WHEN orientation NOT BETWEEN 1 AND 8 THEN
            darkroom.refuse_row('assets', 'assets_orientation_is_exif', format('orientation %s is not an EXIF orientation (1 to 8)', orientation))
        WHEN latitude NOT BETWEEN -90 AND 90 THEN
            darkroom.refuse_row('assets', 'assets_latitude_in_range', format('latitude %s is outside -90 to 90', latitude))
        WHEN longitude NOT BETWEEN -180 AND 180 THEN
            darkroom.refuse_row('assets', 'assets_longitude_in_range', format('longitude %s is outside -180 to 180', longitude))
        WHEN length(creation_date_source) NOT BETWEEN 1 AND 256 THEN
            darkroom.refuse_row('assets', 'assets_creation_date_source_named',
                format('creation_date_source of %s characters is not a name (1 to 256)', length(creation_date_source)))
        WHEN darkroom.stored_path_problem(original_path) IS NOT NULL THEN
            darkroom.refuse_row('assets', 'assets_original_path_in_storage',
                format('original_path %L: %s', original_path, darkroom.stored_path_problem(original_path)))
        ELSE true
    END;
END $$;

CREATE OR REPLACE FUNCTION darkroom.check_asset_row() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM darkroom.asset_row_is_valid(NEW.original_path, NEW.content_sha256, NEW.byte_size, NEW.pixel_width,
                                        NEW.pixel_height, NEW.orientation, NEW.latitude, NEW.longitude,
                                        NEW.creation_date_source);
    RETURN NEW;
END $$;

-- An adjustment record (CHECK adjustments_row_rules; records are never updated): a valid
-- format, a render of positive size inside the storage root, warnings as a JSON array.
CREATE OR REPLACE FUNCTION darkroom.adjustment_row_is_valid(
    format_identifier text, format_version text, rendered_path text,
    rendered_width int, rendered_height int, rendered_bytes bigint, warnings jsonb
) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF (darkroom.is_reverse_dns(format_identifier) AND darkroom.is_semver(format_version)
        AND rendered_width > 0 AND rendered_height > 0 AND rendered_bytes >= 0
        AND jsonb_typeof(warnings) = 'array' AND darkroom.is_stored_path(rendered_path)) THEN
        RETURN true;
    END IF;
    RETURN CASE
        WHEN darkroom.reverse_dns_problem(format_identifier) IS NOT NULL THEN
            darkroom.refuse_row('adjustments', 'adjustments_format_identifier_is_reverse_dns',
                format('format identifier %L: %s', format_identifier, darkroom.reverse_dns_problem(format_identifier)))
        WHEN darkroom.semver_problem(format_version) IS NOT NULL THEN
            darkroom.refuse_row('adjustments', 'adjustments_format_version_is_semver',
                format('format version %L: %s', format_version, darkroom.semver_problem(format_version)))
        WHEN rendered_width <= 0 OR rendered_height <= 0 OR rendered_bytes < 0 THEN
            darkroom.refuse_row('adjustments', 'adjustments_rendered_size_positive',
                format('rendered size %s × %s, %s bytes, is not positive', rendered_width, rendered_height, rendered_bytes))
        WHEN jsonb_typeof(warnings) <> 'array' THEN
            darkroom.refuse_row('adjustments', 'adjustments_warnings_is_array', 'warnings must be a JSON array')
        WHEN darkroom.stored_path_problem(rendered_path) IS NOT NULL THEN
            darkroom.refuse_row('adjustments', 'adjustments_rendered_path_in_storage',
                format('rendered_path %L: %s', rendered_path, darkroom.stored_path_problem(rendered_path)))
        ELSE true
    END;
END $$;
