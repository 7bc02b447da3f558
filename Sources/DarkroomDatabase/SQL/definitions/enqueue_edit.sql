-- Queueing one edit: the SQL API operators use from psql, and the one JobQueue.enqueue calls,
-- so validation lives here and only here. Like every operator API function it runs with the
-- owner's rights (operators cannot write darkroom.jobs themselves), with a fixed search_path
-- so nothing the caller sets can change what it calls, and writes one darkroom.audit_log row.

CREATE OR REPLACE FUNCTION darkroom.enqueue_edit(
    asset_id bigint, format_identifier text, format_version text, data bytea,
    priority int DEFAULT 0, batch text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    problem text;
    new_job_id bigint;
    resolved bytea;
BEGIN
    IF enqueue_edit.asset_id IS NULL THEN
        RAISE EXCEPTION 'asset_id must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass the id of a row in darkroom.assets';
    END IF;
    IF enqueue_edit.format_identifier IS NULL THEN
        RAISE EXCEPTION 'format_identifier must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass a reverse-DNS name such as io.darkroom.pipeline';
    END IF;
    IF enqueue_edit.format_version IS NULL THEN
        RAISE EXCEPTION 'format_version must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass a version such as 1.0 or 1.2.0';
    END IF;
    IF enqueue_edit.data IS NULL THEN
        RAISE EXCEPTION 'data must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass the adjustment payload as jsonb or bytea';
    END IF;
    IF enqueue_edit.priority IS NULL THEN
        RAISE EXCEPTION 'priority must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass 0 for normal priority; higher numbers run first';
    END IF;
    PERFORM darkroom.require_job_options(enqueue_edit.priority, enqueue_edit.batch);
    IF NOT EXISTS (SELECT 1 FROM darkroom.assets AS a WHERE a.id = enqueue_edit.asset_id) THEN
        RAISE EXCEPTION 'asset % does not exist', enqueue_edit.asset_id USING ERRCODE = 'foreign_key_violation',
            HINT = 'register the photo first; existing ids are in darkroom.assets';
    END IF;
    problem := darkroom.reverse_dns_problem(enqueue_edit.format_identifier);
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'format_identifier % is not a reverse-DNS identifier: %',
            quote_literal(enqueue_edit.format_identifier), problem USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use two or more dot-separated labels of letters, digits and hyphens, e.g. io.darkroom.pipeline';
    END IF;
    problem := darkroom.semver_problem(enqueue_edit.format_version);
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'format_version % is not a semantic version: %',
            quote_literal(enqueue_edit.format_version), problem USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use MAJOR.MINOR or MAJOR.MINOR.PATCH, optionally with -prerelease and +build, e.g. 1.0 or 2.1.0-beta.1';
    END IF;
    IF octet_length(enqueue_edit.data) > 1048576 THEN
        RAISE EXCEPTION 'data is % bytes; the limit is 1048576 bytes (1 MiB)', octet_length(enqueue_edit.data)
            USING ERRCODE = 'program_limit_exceeded',
            HINT = 'adjustment data describes edits, not pixels; keep large inputs in files and reference them';
    END IF;
    -- A filter must exist; a missing version is the newest now, stored in the job's data.
    IF enqueue_edit.format_identifier = 'io.darkroom.pipeline' THEN
        resolved := darkroom.resolve_filters(enqueue_edit.data);
    ELSE
        resolved := enqueue_edit.data;
    END IF;

    INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version, data, priority, batch)
    VALUES (enqueue_edit.asset_id, 'edit', enqueue_edit.format_identifier, enqueue_edit.format_version,
            resolved, enqueue_edit.priority, enqueue_edit.batch)
    RETURNING id INTO new_job_id;
    PERFORM darkroom.record_action('enqueue_edit', jsonb_build_object(
        'asset_id', enqueue_edit.asset_id, 'format_identifier', enqueue_edit.format_identifier,
        'format_version', enqueue_edit.format_version, 'priority', enqueue_edit.priority, 'batch', enqueue_edit.batch)
        || darkroom.audited_data(enqueue_edit.data), jsonb_build_object('job_id', new_job_id));
    RETURN new_job_id;
END $$;

-- jsonb is stored as its UTF-8 text, so workers read bytes whichever overload was used.
CREATE OR REPLACE FUNCTION darkroom.enqueue_edit(
    asset_id bigint, format_identifier text, format_version text, data jsonb,
    priority int DEFAULT 0, batch text DEFAULT NULL
) RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT darkroom.enqueue_edit(asset_id, format_identifier, format_version,
                                 convert_to(data::text, 'UTF8'), priority, batch)
$$;

-- An untyped literal ('{"exposure": 0.5}') would fit both jsonb and bytea and make the call
-- ambiguous; this overload catches it and reads it as JSON.
CREATE OR REPLACE FUNCTION darkroom.enqueue_edit(
    asset_id bigint, format_identifier text, format_version text, data text,
    priority int DEFAULT 0, batch text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    parsed jsonb;
BEGIN
    BEGIN
        parsed := enqueue_edit.data::jsonb;
    EXCEPTION WHEN invalid_text_representation THEN
        RAISE EXCEPTION 'data is not valid JSON: %', SQLERRM USING ERRCODE = 'invalid_parameter_value',
            HINT = 'pass JSON text, or cast a binary payload to bytea (''\x...''::bytea)';
    END;
    RETURN darkroom.enqueue_edit(enqueue_edit.asset_id, enqueue_edit.format_identifier,
                                 enqueue_edit.format_version, parsed, enqueue_edit.priority, enqueue_edit.batch);
END $$;
