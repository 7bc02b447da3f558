extension Migration {
    /// The SQL interface for operators (psql, scripts). The Swift `JobQueue` enqueues through
    /// the same function, so validation lives in one place.
    static let operatorAPI = Migration(version: 3, name: "operator_api", sql: #"""
        CREATE OR REPLACE FUNCTION darkroom.enqueue_edit(
            asset_id bigint, format_identifier text, format_version text, data bytea,
            priority int DEFAULT 0, batch text DEFAULT NULL
        ) RETURNS bigint
        LANGUAGE plpgsql SECURITY INVOKER AS $$
        DECLARE
            problem text;
            new_job_id bigint;
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

            INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version, data, priority, batch)
            VALUES (enqueue_edit.asset_id, 'edit', enqueue_edit.format_identifier, enqueue_edit.format_version,
                    enqueue_edit.data, enqueue_edit.priority, enqueue_edit.batch)
            RETURNING id INTO new_job_id;
            RETURN new_job_id;
        END $$;

        -- jsonb is stored as its UTF-8 text, so workers read bytes whichever overload was used.
        CREATE OR REPLACE FUNCTION darkroom.enqueue_edit(
            asset_id bigint, format_identifier text, format_version text, data jsonb,
            priority int DEFAULT 0, batch text DEFAULT NULL
        ) RETURNS bigint
        LANGUAGE sql SECURITY INVOKER AS $$
            SELECT darkroom.enqueue_edit(asset_id, format_identifier, format_version,
                                         convert_to(data::text, 'UTF8'), priority, batch)
        $$;

        -- An untyped literal ('{"exposure": 0.5}') would fit both jsonb and bytea and make the call
        -- ambiguous; this overload catches it and reads it as JSON.
        CREATE OR REPLACE FUNCTION darkroom.enqueue_edit(
            asset_id bigint, format_identifier text, format_version text, data text,
            priority int DEFAULT 0, batch text DEFAULT NULL
        ) RETURNS bigint
        LANGUAGE plpgsql SECURITY INVOKER AS $$
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

        -- Queued or running jobs become cancelled and return true. Clearing the lease means a worker
        -- still rendering a cancelled job fails its lease check when it reports back, so it writes
        -- nothing. A job that already finished is left alone: NOTICE and false.
        CREATE OR REPLACE FUNCTION darkroom.cancel_job(job_id bigint) RETURNS boolean
        LANGUAGE plpgsql SECURITY INVOKER AS $$
        DECLARE
            current_state text;
        BEGIN
            IF cancel_job.job_id IS NULL THEN
                RAISE EXCEPTION 'job_id must not be NULL' USING ERRCODE = 'null_value_not_allowed',
                    HINT = 'pass the id of a row in darkroom.jobs';
            END IF;
            SELECT j.state INTO current_state FROM darkroom.jobs AS j WHERE j.id = cancel_job.job_id FOR UPDATE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'job % does not exist', cancel_job.job_id USING ERRCODE = 'no_data_found',
                    HINT = 'existing ids are in darkroom.jobs';
            END IF;
            IF current_state NOT IN ('queued', 'running') THEN
                RAISE NOTICE 'job % is already %; nothing to cancel', cancel_job.job_id, current_state;
                RETURN false;
            END IF;
            UPDATE darkroom.jobs AS j
               SET state = 'cancelled', finished_at = now(), lease_token = NULL, lease_expires_at = NULL
             WHERE j.id = cancel_job.job_id;
            RETURN true;
        END $$;

        -- Failed or cancelled jobs go back to the queue with a fresh set of attempts; their error
        -- history is kept. Other states are left alone: NOTICE and false.
        CREATE OR REPLACE FUNCTION darkroom.retry_job(job_id bigint) RETURNS boolean
        LANGUAGE plpgsql SECURITY INVOKER AS $$
        DECLARE
            current_state text;
        BEGIN
            IF retry_job.job_id IS NULL THEN
                RAISE EXCEPTION 'job_id must not be NULL' USING ERRCODE = 'null_value_not_allowed',
                    HINT = 'pass the id of a row in darkroom.jobs';
            END IF;
            SELECT j.state INTO current_state FROM darkroom.jobs AS j WHERE j.id = retry_job.job_id FOR UPDATE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'job % does not exist', retry_job.job_id USING ERRCODE = 'no_data_found',
                    HINT = 'existing ids are in darkroom.jobs';
            END IF;
            IF current_state NOT IN ('failed', 'cancelled') THEN
                RAISE NOTICE 'job % is %; only failed or cancelled jobs can be retried', retry_job.job_id, current_state;
                RETURN false;
            END IF;
            UPDATE darkroom.jobs AS j
               SET state = 'queued', attempts = 0, run_at = now(), started_at = NULL, finished_at = NULL
             WHERE j.id = retry_job.job_id;
            PERFORM pg_notify('darkroom_jobs', '');
            RETURN true;
        END $$;

        -- Every state appears, with 0 when no job is in it.
        CREATE OR REPLACE VIEW darkroom.queue_summary AS
        SELECT s.state, count(j.id) AS count, min(j.run_at) AS oldest_run_at
          FROM unnest(ARRAY['queued', 'running', 'succeeded', 'failed', 'cancelled']) WITH ORDINALITY AS s(state, ordinal)
          LEFT JOIN darkroom.jobs AS j ON j.state = s.state
         GROUP BY s.state, s.ordinal
         ORDER BY s.ordinal;

        CREATE OR REPLACE VIEW darkroom.recent_failures AS
        SELECT id AS job_id, asset_id, attempts, last_error, finished_at
          FROM darkroom.jobs
         WHERE state = 'failed'
         ORDER BY finished_at DESC, id DESC;
        """#)
}
