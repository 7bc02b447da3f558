-- The darkroom schema as the release before SQL moved into .sql files left it: 'darkroom migrate'
-- of migrations 1-9 on an empty database, dumped with pg_dump 15 (schema, then the rows of
-- schema_migrations and settings). Tests/DarkroomDatabaseTests/SchemaDefinitionTests.swift
-- (anUpgradedDatabaseEqualsAFreshOne) migrates it and compares it with a fresh install.
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: darkroom; Type: SCHEMA; Schema: -; Owner: darkroom
--

CREATE SCHEMA darkroom;


ALTER SCHEMA darkroom OWNER TO darkroom;

--
-- Name: batch_problem(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.batch_problem(batch text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT CASE
        WHEN batch IS NULL THEN NULL
        WHEN batch = '' THEN 'batch must not be empty; pass NULL for no batch'
        WHEN length(batch) > 200 THEN format('batch is %s characters long; the limit is 200', length(batch))
        WHEN batch ~ '[[:cntrl:]]' THEN 'batch must not contain control characters'
    END
$$;


ALTER FUNCTION darkroom.batch_problem(batch text) OWNER TO darkroom;

--
-- Name: cancel_batch(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.cancel_batch(batch text) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    changed bigint;
BEGIN
    IF cancel_batch.batch IS NULL THEN
        RAISE EXCEPTION 'batch must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'batches are listed in darkroom.batch_summary';
    END IF;
    UPDATE darkroom.jobs AS j
       SET state = 'cancelled', finished_at = now(), lease_token = NULL, lease_expires_at = NULL
     WHERE j.batch = cancel_batch.batch AND j.state IN ('queued', 'running');
    GET DIAGNOSTICS changed = ROW_COUNT;
    IF changed = 0 AND NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j WHERE j.batch = cancel_batch.batch) THEN
        RAISE EXCEPTION 'there is no batch %', quote_literal(cancel_batch.batch) USING ERRCODE = 'no_data_found',
            HINT = 'batches are listed in darkroom.batch_summary';
    END IF;
    RETURN changed;
END $$;


ALTER FUNCTION darkroom.cancel_batch(batch text) OWNER TO darkroom;

--
-- Name: cancel_job(bigint); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.cancel_job(job_id bigint) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
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


ALTER FUNCTION darkroom.cancel_job(job_id bigint) OWNER TO darkroom;

--
-- Name: reverse_dns_problem_detail(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.reverse_dns_problem_detail(identifier text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $_$
DECLARE
    labels text[] := string_to_array(identifier, '.');
    label text;
    label_number int := 0;
BEGIN
    IF identifier IS NULL THEN RETURN 'it is missing'; END IF;
    IF identifier = '' THEN RETURN 'it is empty'; END IF;
    IF length(identifier) > 255 THEN
        RETURN format('it is %s characters long; the limit is 255', length(identifier));
    END IF;
    IF cardinality(labels) < 2 THEN RETURN 'it needs at least two dot-separated labels'; END IF;
    FOREACH label IN ARRAY labels LOOP
        label_number := label_number + 1;
        IF label = '' THEN RETURN format('label %s is empty', label_number); END IF;
        IF label !~ '^[A-Za-z0-9-]+$' THEN
            RETURN format('label %s (%L) may contain only letters, digits and hyphens', label_number, label);
        END IF;
        IF label ~ '^-|-$' THEN
            RETURN format('label %s (%L) starts or ends with a hyphen', label_number, label);
        END IF;
    END LOOP;
    RETURN NULL;
END $_$;


ALTER FUNCTION darkroom.reverse_dns_problem_detail(identifier text) OWNER TO darkroom;

--
-- Name: semver_problem_detail(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.semver_problem_detail(version text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $_$
DECLARE
    numbers text[] := string_to_array(substring(version FROM '^[^-+]*'), '.');
    number text;
BEGIN
    IF version IS NULL THEN RETURN 'it is missing'; END IF;
    IF length(version) > 255 THEN
        RETURN format('it is %s characters long; the limit is 255', length(version));
    END IF;
    IF version ~ '^[vV]' THEN RETURN 'it starts with "v"; write the bare number'; END IF;
    IF cardinality(numbers) NOT IN (2, 3) THEN
        RETURN format('it has %s dot-separated numbers; use MAJOR.MINOR or MAJOR.MINOR.PATCH', coalesce(cardinality(numbers), 0));
    END IF;
    FOREACH number IN ARRAY numbers LOOP
        IF number !~ '^[0-9]+$' THEN RETURN format('%L is not a number', number); END IF;
        IF number ~ '^0[0-9]' THEN RETURN format('%L has a leading zero', number); END IF;
        IF length(number) > 9 THEN RETURN format('%L has more than 9 digits', number); END IF;
    END LOOP;
    IF version !~ '^[0-9]+\.[0-9]+(\.[0-9]+)?(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$' THEN
        RETURN 'its -pre-release or +build suffix is malformed: use dot-separated identifiers of [0-9A-Za-z-], numeric ones without leading zeros';
    END IF;
    RETURN NULL;
END $_$;


ALTER FUNCTION darkroom.semver_problem_detail(version text) OWNER TO darkroom;

--
-- Name: semver_sort_key(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.semver_sort_key(version text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT lpad(split_part(substring(version FROM '^[0-9]+\.[0-9]+(?:\.[0-9]+)?'), '.', 1), 9, '0') || '.'
           || lpad(split_part(substring(version FROM '^[0-9]+\.[0-9]+(?:\.[0-9]+)?'), '.', 2), 9, '0') || '.'
           || lpad(coalesce(nullif(split_part(substring(version FROM '^[0-9]+\.[0-9]+(?:\.[0-9]+)?'), '.', 3), ''), '0'), 9, '0')
           || CASE WHEN split_part(version, '+', 1) LIKE '%-%' THEN '.0' ELSE '.1' END
$$;


ALTER FUNCTION darkroom.semver_sort_key(version text) OWNER TO darkroom;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: jobs; Type: TABLE; Schema: darkroom; Owner: darkroom
--

CREATE TABLE darkroom.jobs (
    id bigint NOT NULL,
    asset_id bigint NOT NULL,
    kind text DEFAULT 'edit'::text NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    format_identifier text,
    format_version text,
    data bytea,
    priority integer DEFAULT 0 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    last_error text,
    errors jsonb DEFAULT '[]'::jsonb NOT NULL,
    batch text,
    lease_token uuid,
    leased_by text,
    lease_expires_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    adjustment_id bigint,
    crashes integer DEFAULT 0 NOT NULL,
    completed_lease uuid,
    format_version_sort text GENERATED ALWAYS AS (darkroom.semver_sort_key(format_version)) STORED COLLATE pg_catalog."C",
    outcome text,
    CONSTRAINT jobs_adjustment_only_when_succeeded CHECK (((adjustment_id IS NULL) OR (state = 'succeeded'::text))),
    CONSTRAINT jobs_attempts_in_range CHECK (((attempts >= 0) AND (max_attempts >= 1))),
    CONSTRAINT jobs_data_at_most_1_mib CHECK ((octet_length(data) <= 1048576)),
    CONSTRAINT jobs_edit_succeeds_with_adjustment CHECK (((kind <> 'edit'::text) OR (state <> 'succeeded'::text) OR (adjustment_id IS NOT NULL))),
    CONSTRAINT jobs_errors_is_array CHECK ((jsonb_typeof(errors) = 'array'::text)),
    CONSTRAINT jobs_format_identifier_is_reverse_dns CHECK (((format_identifier IS NULL) OR (darkroom.reverse_dns_problem_detail(format_identifier) IS NULL))),
    CONSTRAINT jobs_format_version_is_semver CHECK (((format_version IS NULL) OR (darkroom.semver_problem_detail(format_version) IS NULL))),
    CONSTRAINT jobs_kind_is_known CHECK ((kind = ANY (ARRAY['edit'::text, 'revert'::text, 'revert_last'::text, 'rerender'::text]))),
    CONSTRAINT jobs_kind_shape CHECK (
CASE kind
    WHEN 'edit'::text THEN ((format_identifier IS NOT NULL) AND (format_version IS NOT NULL) AND (data IS NOT NULL))
    WHEN 'rerender'::text THEN ((data IS NULL) AND ((format_version IS NULL) OR (format_identifier IS NOT NULL)))
    ELSE ((format_identifier IS NULL) AND (format_version IS NULL) AND (data IS NULL))
END),
    CONSTRAINT jobs_lease_only_while_running CHECK (
CASE
    WHEN (state = 'running'::text) THEN ((lease_token IS NOT NULL) AND (leased_by IS NOT NULL) AND (lease_expires_at IS NOT NULL))
    ELSE ((lease_token IS NULL) AND (lease_expires_at IS NULL))
END),
    CONSTRAINT jobs_state_is_known CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text])))
)
WITH (fillfactor='85', autovacuum_vacuum_scale_factor='0.02', autovacuum_vacuum_threshold='1000', autovacuum_vacuum_insert_scale_factor='0.05', autovacuum_analyze_scale_factor='0.02', autovacuum_vacuum_cost_delay='0');


ALTER TABLE darkroom.jobs OWNER TO darkroom;

--
-- Name: claim_jobs(text, integer, double precision, jsonb); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.claim_jobs(worker_name text, max_jobs integer, lease_seconds double precision, formats jsonb DEFAULT NULL::jsonb) RETURNS SETOF darkroom.jobs
    LANGUAGE plpgsql
    AS $$
DECLARE
    problem text := darkroom.formats_problem(formats);
    identifiers text[];
    lows text[];
    highs text[];
BEGIN
    IF worker_name IS NULL OR worker_name = '' OR length(worker_name) > 200 THEN
        RAISE EXCEPTION 'worker_name must be 1 to 200 characters' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF max_jobs IS NULL OR max_jobs NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION 'max_jobs must be between 1 and 1000, got %', max_jobs USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF lease_seconds IS NULL OR NOT lease_seconds BETWEEN 1 AND 86400 THEN
        RAISE EXCEPTION 'lease_seconds must be between 1 and 86400, got %', lease_seconds USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION '%', problem USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM darkroom.rescue_expired_leases();
    IF formats IS NOT NULL THEN
        SELECT coalesce(array_agg(f->>'identifier'), '{}'), coalesce(array_agg(darkroom.semver_sort_key(f->>'min')), '{}'),
               coalesce(array_agg(darkroom.semver_sort_key(f->>'max')), '{}')
          INTO identifiers, lows, highs
          FROM jsonb_array_elements(formats) AS f;
    END IF;
    RETURN QUERY
    WITH next AS MATERIALIZED (
        SELECT j.id FROM darkroom.jobs AS j
         WHERE j.state = 'queued' AND j.run_at <= now()
           AND (identifiers IS NULL OR CASE j.kind
                WHEN 'edit' THEN EXISTS (
                    SELECT 1 FROM unnest(identifiers, lows, highs) AS f(identifier, low, high)
                     WHERE f.identifier = j.format_identifier AND j.format_version_sort BETWEEN f.low AND f.high)
                WHEN 'rerender' THEN j.format_identifier IS NULL OR EXISTS (
                    SELECT 1 FROM unnest(identifiers, highs) AS f(identifier, high)
                     WHERE f.identifier = j.format_identifier
                       AND (j.format_version_sort IS NULL OR f.high >= j.format_version_sort))
                ELSE true END)
           AND NOT EXISTS (
                SELECT 1 FROM darkroom.jobs AS other
                 WHERE other.asset_id = j.asset_id AND other.id <> j.id AND other.state IN ('queued', 'running')
                   AND (other.state = 'running' OR other.priority > j.priority
                        OR (other.priority = j.priority AND other.id < j.id)))
         ORDER BY j.priority DESC, j.run_at, j.id
         LIMIT max_jobs
           FOR UPDATE SKIP LOCKED
    )
    UPDATE darkroom.jobs AS j
       SET state = 'running', attempts = j.attempts + 1, lease_token = gen_random_uuid(),
           leased_by = worker_name, lease_expires_at = now() + make_interval(secs => lease_seconds),
           started_at = now()
      FROM next
     WHERE j.id = next.id
    RETURNING j.*;
END $$;


ALTER FUNCTION darkroom.claim_jobs(worker_name text, max_jobs integer, lease_seconds double precision, formats jsonb) OWNER TO darkroom;

--
-- Name: enqueue_edit(bigint, text, text, bytea, integer, text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.enqueue_edit(asset_id bigint, format_identifier text, format_version text, data bytea, priority integer DEFAULT 0, batch text DEFAULT NULL::text) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
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


ALTER FUNCTION darkroom.enqueue_edit(asset_id bigint, format_identifier text, format_version text, data bytea, priority integer, batch text) OWNER TO darkroom;

--
-- Name: enqueue_edit(bigint, text, text, jsonb, integer, text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.enqueue_edit(asset_id bigint, format_identifier text, format_version text, data jsonb, priority integer DEFAULT 0, batch text DEFAULT NULL::text) RETURNS bigint
    LANGUAGE sql
    AS $$
    SELECT darkroom.enqueue_edit(asset_id, format_identifier, format_version,
                                 convert_to(data::text, 'UTF8'), priority, batch)
$$;


ALTER FUNCTION darkroom.enqueue_edit(asset_id bigint, format_identifier text, format_version text, data jsonb, priority integer, batch text) OWNER TO darkroom;

--
-- Name: enqueue_edit(bigint, text, text, text, integer, text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.enqueue_edit(asset_id bigint, format_identifier text, format_version text, data text, priority integer DEFAULT 0, batch text DEFAULT NULL::text) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
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


ALTER FUNCTION darkroom.enqueue_edit(asset_id bigint, format_identifier text, format_version text, data text, priority integer, batch text) OWNER TO darkroom;

--
-- Name: enqueue_edits(bigint[], text, text, bytea, integer, text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.enqueue_edits(asset_ids bigint[], format_identifier text, format_version text, data bytea, priority integer DEFAULT '-10'::integer, batch text DEFAULT NULL::text) RETURNS TABLE(asset_id bigint, job_id bigint)
    LANGUAGE plpgsql
    AS $$
DECLARE
    problem text;
    missing bigint[];
BEGIN
    IF asset_ids IS NULL OR format_identifier IS NULL OR format_version IS NULL OR data IS NULL OR priority IS NULL THEN
        RAISE EXCEPTION 'asset_ids, format_identifier, format_version, data and priority must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF array_position(asset_ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'asset_ids must not contain NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    problem := coalesce(darkroom.reverse_dns_problem(format_identifier), darkroom.semver_problem(format_version),
                        darkroom.batch_problem(batch));
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'the edits were refused: %', problem USING ERRCODE = 'invalid_parameter_value',
            HINT = 'identifiers are reverse-DNS (io.darkroom.pipeline), versions MAJOR.MINOR[.PATCH]';
    END IF;
    IF octet_length(data) > 1048576 THEN
        RAISE EXCEPTION 'data is % bytes; the limit is 1048576 bytes (1 MiB)', octet_length(data)
            USING ERRCODE = 'program_limit_exceeded';
    END IF;
    IF priority NOT BETWEEN -1000 AND 1000 THEN
        RAISE EXCEPTION 'priority must be between -1000 and 1000, got %', priority USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT array_agg(DISTINCT requested.id ORDER BY requested.id) INTO missing
      FROM unnest(asset_ids) AS requested(id)
     WHERE NOT EXISTS (SELECT 1 FROM darkroom.assets AS a WHERE a.id = requested.id);
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION '% of the assets do not exist: %', cardinality(missing),
            array_to_string(missing[1:10], ', ') || CASE WHEN cardinality(missing) > 10 THEN ', …' ELSE '' END
            USING ERRCODE = 'foreign_key_violation', HINT = 'nothing was queued; existing ids are in darkroom.assets';
    END IF;
    RETURN QUERY
    INSERT INTO darkroom.jobs AS j (asset_id, kind, format_identifier, format_version, data, priority, batch)
    SELECT requested.id, 'edit', enqueue_edits.format_identifier, enqueue_edits.format_version,
           enqueue_edits.data, enqueue_edits.priority, enqueue_edits.batch
      FROM unnest(asset_ids) WITH ORDINALITY AS requested(id, n)
     ORDER BY requested.n
    RETURNING j.asset_id, j.id;
END $$;


ALTER FUNCTION darkroom.enqueue_edits(asset_ids bigint[], format_identifier text, format_version text, data bytea, priority integer, batch text) OWNER TO darkroom;

--
-- Name: enqueue_edits(bigint[], text, text, jsonb, integer, text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.enqueue_edits(asset_ids bigint[], format_identifier text, format_version text, data jsonb, priority integer DEFAULT '-10'::integer, batch text DEFAULT NULL::text) RETURNS TABLE(asset_id bigint, job_id bigint)
    LANGUAGE sql
    AS $$
    SELECT * FROM darkroom.enqueue_edits(asset_ids, format_identifier, format_version,
                                         convert_to(data::text, 'UTF8'), priority, batch)
$$;


ALTER FUNCTION darkroom.enqueue_edits(asset_ids bigint[], format_identifier text, format_version text, data jsonb, priority integer, batch text) OWNER TO darkroom;

--
-- Name: enqueue_rerender(text, text, integer, text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.enqueue_rerender(format_identifier text, below_version text DEFAULT NULL::text, priority integer DEFAULT '-20'::integer, batch text DEFAULT NULL::text) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    queued bigint;
    below_key text;
BEGIN
    PERFORM darkroom.require_reverse_dns(enqueue_rerender.format_identifier);
    IF below_version IS NOT NULL THEN
        below_key := darkroom.semver_sort_key(darkroom.require_semver(below_version));
    END IF;
    PERFORM darkroom.require_job_options(priority, batch);
    WITH RECURSIVE chain AS (
        SELECT s.id AS asset_id, a.base_adjustment_id, a.format_identifier, a.format_version
          FROM darkroom.assets AS s
          JOIN darkroom.adjustments AS a ON a.id = s.current_adjustment_id
        UNION ALL
        SELECT c.asset_id, b.base_adjustment_id, b.format_identifier, b.format_version
          FROM chain AS c
          JOIN darkroom.adjustments AS b ON b.id = c.base_adjustment_id
    ), affected AS (
        SELECT DISTINCT c.asset_id
          FROM chain AS c
         WHERE c.format_identifier = enqueue_rerender.format_identifier
           AND (below_key IS NULL OR darkroom.semver_sort_key(c.format_version) < below_key)
    )
    INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version, priority, batch)
    SELECT f.asset_id, 'rerender', enqueue_rerender.format_identifier, below_version,
           enqueue_rerender.priority, enqueue_rerender.batch
      FROM affected AS f
     WHERE NOT EXISTS (
           SELECT 1 FROM darkroom.jobs AS j
            WHERE j.asset_id = f.asset_id AND j.state IN ('queued', 'running') AND j.kind = 'rerender'
              AND j.format_identifier IS NOT DISTINCT FROM enqueue_rerender.format_identifier
              AND j.format_version IS NOT DISTINCT FROM below_version)
     ORDER BY f.asset_id;
    GET DIAGNOSTICS queued = ROW_COUNT;
    RETURN queued;
END $$;


ALTER FUNCTION darkroom.enqueue_rerender(format_identifier text, below_version text, priority integer, batch text) OWNER TO darkroom;

--
-- Name: enqueue_revert(bigint, boolean, integer, text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.enqueue_revert(asset_id bigint, last_only boolean DEFAULT false, priority integer DEFAULT 0, batch text DEFAULT NULL::text) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    new_job_id bigint;
BEGIN
    PERFORM darkroom.require_asset(enqueue_revert.asset_id);
    PERFORM darkroom.require_job_options(priority, batch);
    IF last_only IS NULL THEN
        RAISE EXCEPTION 'last_only must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'false reverts to the original; true removes only the last layer';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM darkroom.assets AS a
                    WHERE a.id = enqueue_revert.asset_id AND a.current_adjustment_id IS NOT NULL)
       AND NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j
                        WHERE j.asset_id = enqueue_revert.asset_id AND j.state IN ('queued', 'running')) THEN
        RAISE EXCEPTION 'asset % has no edits to revert: it shows its original', enqueue_revert.asset_id
            USING ERRCODE = 'no_data_found', HINT = 'darkroom history --asset ID shows what happened to it';
    END IF;
    INSERT INTO darkroom.jobs (asset_id, kind, priority, batch)
    VALUES (enqueue_revert.asset_id, CASE WHEN last_only THEN 'revert_last' ELSE 'revert' END,
            enqueue_revert.priority, enqueue_revert.batch)
    RETURNING id INTO new_job_id;
    RETURN new_job_id;
END $$;


ALTER FUNCTION darkroom.enqueue_revert(asset_id bigint, last_only boolean, priority integer, batch text) OWNER TO darkroom;

--
-- Name: formats_problem(jsonb); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.formats_problem(formats jsonb) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    AS $$
DECLARE
    entry jsonb;
    problem text;
BEGIN
    IF formats IS NULL THEN RETURN NULL; END IF;
    IF jsonb_typeof(formats) <> 'array' THEN
        RETURN 'formats must be a JSON array of {"identifier", "min", "max"} objects';
    END IF;
    FOR entry IN SELECT value FROM jsonb_array_elements(formats) LOOP
        IF jsonb_typeof(entry) <> 'object' OR jsonb_typeof(entry->'identifier') <> 'string'
           OR jsonb_typeof(entry->'min') <> 'string' OR jsonb_typeof(entry->'max') <> 'string' THEN
            RETURN format('formats entry %s must be {"identifier": text, "min": version, "max": version}', entry);
        END IF;
        problem := coalesce(darkroom.reverse_dns_problem(entry->>'identifier'),
                            darkroom.semver_problem(entry->>'min'), darkroom.semver_problem(entry->>'max'));
        IF problem IS NOT NULL THEN RETURN format('formats entry %s: %s', entry, problem); END IF;
    END LOOP;
    RETURN NULL;
END $$;


ALTER FUNCTION darkroom.formats_problem(formats jsonb) OWNER TO darkroom;

--
-- Name: heartbeat(text, text, integer, double precision, bigint[], uuid[], jsonb, boolean); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.heartbeat(worker_name text, host text, pid integer, lease_seconds double precision, job_ids bigint[], lease_tokens uuid[], formats jsonb DEFAULT '[]'::jsonb, stopping boolean DEFAULT false) RETURNS TABLE(job_id bigint, held boolean, state text)
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF cardinality(job_ids) IS DISTINCT FROM cardinality(lease_tokens) THEN
        RAISE EXCEPTION 'job_ids and lease_tokens must have the same length' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF lease_seconds IS NULL OR NOT lease_seconds BETWEEN 1 AND 86400 THEN
        RAISE EXCEPTION 'lease_seconds must be between 1 and 86400, got %', lease_seconds USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO darkroom.workers AS w (name, host, pid, lease_seconds, formats, running, stopping)
    VALUES (worker_name, host, pid, lease_seconds, coalesce(formats, '[]'), coalesce(cardinality(job_ids), 0), stopping)
    ON CONFLICT (name) DO UPDATE
       SET last_seen_at = now(), lease_seconds = EXCLUDED.lease_seconds, formats = EXCLUDED.formats,
           running = EXCLUDED.running, stopping = EXCLUDED.stopping;
    RETURN QUERY
    WITH mine AS (
        SELECT m.id, m.token FROM unnest(job_ids, lease_tokens) AS m(id, token)
    ), extended AS (
        UPDATE darkroom.jobs AS j
           SET lease_expires_at = now() + make_interval(secs => lease_seconds)
          FROM mine
         WHERE j.id = mine.id AND j.lease_token = mine.token AND j.state = 'running' AND j.lease_expires_at >= now()
        RETURNING j.id
    )
    SELECT mine.id, extended.id IS NOT NULL, coalesce(j.state, 'deleted')
      FROM mine
      LEFT JOIN extended ON extended.id = mine.id
      LEFT JOIN darkroom.jobs AS j ON j.id = mine.id;
END $$;


ALTER FUNCTION darkroom.heartbeat(worker_name text, host text, pid integer, lease_seconds double precision, job_ids bigint[], lease_tokens uuid[], formats jsonb, stopping boolean) OWNER TO darkroom;

--
-- Name: notify_jobs_inserted(); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.notify_jobs_inserted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM inserted_jobs) THEN
        PERFORM pg_notify('darkroom_jobs', '');
    END IF;
    RETURN NULL;
END $$;


ALTER FUNCTION darkroom.notify_jobs_inserted() OWNER TO darkroom;

--
-- Name: prune_jobs(interval, interval, interval, integer); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.prune_jobs(keep_succeeded interval DEFAULT NULL::interval, keep_failed interval DEFAULT NULL::interval, keep_cancelled interval DEFAULT NULL::interval, batch_size integer DEFAULT 5000) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    succeeded_cutoff timestamptz := now() - coalesce(keep_succeeded, darkroom.setting('keep_succeeded')::interval);
    failed_cutoff timestamptz := now() - coalesce(keep_failed, darkroom.setting('keep_failed')::interval);
    cancelled_cutoff timestamptz := now() - coalesce(keep_cancelled, darkroom.setting('keep_cancelled')::interval);
    deleted bigint;
BEGIN
    IF batch_size IS NULL OR batch_size NOT BETWEEN 1 AND 100000 THEN
        RAISE EXCEPTION 'batch_size must be between 1 and 100000, got %', batch_size USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF least(keep_succeeded, keep_failed, keep_cancelled) < interval '0' THEN
        RAISE EXCEPTION 'keep_* intervals must not be negative' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    WITH doomed AS (
        SELECT j.id FROM darkroom.jobs AS j
         WHERE j.state IN ('succeeded', 'failed', 'cancelled')
           AND j.finished_at < CASE j.state WHEN 'succeeded' THEN succeeded_cutoff
                                            WHEN 'failed' THEN failed_cutoff ELSE cancelled_cutoff END
         ORDER BY j.finished_at
         LIMIT batch_size
           FOR UPDATE SKIP LOCKED
    )
    DELETE FROM darkroom.jobs AS j USING doomed WHERE j.id = doomed.id;
    GET DIAGNOSTICS deleted = ROW_COUNT;
    DELETE FROM darkroom.workers AS w
     WHERE w.last_seen_at < now() - darkroom.setting('forget_workers_after')::interval;
    RETURN deleted;
END $$;


ALTER FUNCTION darkroom.prune_jobs(keep_succeeded interval, keep_failed interval, keep_cancelled interval, batch_size integer) OWNER TO darkroom;

--
-- Name: refuse_adjustment_changes(); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.refuse_adjustment_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM darkroom.assets WHERE id = OLD.asset_id) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'darkroom.adjustments is append-only: adjustment % cannot be %',
        OLD.id, CASE TG_OP WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END
        USING ERRCODE = 'restrict_violation',
              HINT = 'record a new adjustment instead; deleting the asset removes its whole history';
END $$;


ALTER FUNCTION darkroom.refuse_adjustment_changes() OWNER TO darkroom;

--
-- Name: refuse_history_changes(); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.refuse_history_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM darkroom.assets WHERE id = OLD.asset_id) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'darkroom.asset_history is append-only: entry % cannot be %',
        OLD.id, CASE TG_OP WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END
        USING ERRCODE = 'restrict_violation', HINT = 'deleting the asset removes its whole history';
END $$;


ALTER FUNCTION darkroom.refuse_history_changes() OWNER TO darkroom;

--
-- Name: require_asset(bigint); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.require_asset(asset_id bigint) RETURNS bigint
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
    IF require_asset.asset_id IS NULL THEN
        RAISE EXCEPTION 'asset_id must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass the id of a row in darkroom.assets';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM darkroom.assets AS a WHERE a.id = require_asset.asset_id) THEN
        RAISE EXCEPTION 'asset % does not exist', require_asset.asset_id USING ERRCODE = 'foreign_key_violation',
            HINT = 'existing ids are in darkroom.assets';
    END IF;
    RETURN asset_id;
END $$;


ALTER FUNCTION darkroom.require_asset(asset_id bigint) OWNER TO darkroom;

--
-- Name: require_job_options(integer, text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.require_job_options(priority integer, batch text) RETURNS void
    LANGUAGE plpgsql IMMUTABLE
    AS $$
DECLARE
    problem text := darkroom.batch_problem(batch);
BEGIN
    IF priority IS NULL OR priority NOT BETWEEN -1000 AND 1000 THEN
        RAISE EXCEPTION 'priority must be between -1000 and 1000, got %', coalesce(priority::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = '0 is normal; higher numbers run first';
    END IF;
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION '%', problem USING ERRCODE = 'invalid_parameter_value';
    END IF;
END $$;


ALTER FUNCTION darkroom.require_job_options(priority integer, batch text) OWNER TO darkroom;

--
-- Name: require_reverse_dns(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.require_reverse_dns(identifier text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    AS $$
DECLARE
    problem text := darkroom.reverse_dns_problem(identifier);
BEGIN
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'format identifier % is not reverse-DNS: %', quote_nullable(identifier), problem
            USING ERRCODE = 'invalid_parameter_value', HINT = 'e.g. io.darkroom.pipeline';
    END IF;
    RETURN identifier;
END $$;


ALTER FUNCTION darkroom.require_reverse_dns(identifier text) OWNER TO darkroom;

--
-- Name: require_semver(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.require_semver(version text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    AS $$
DECLARE
    problem text := darkroom.semver_problem(version);
BEGIN
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'version % is not a semantic version: %', quote_nullable(version), problem
            USING ERRCODE = 'invalid_parameter_value', HINT = 'use MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. 1.1.0';
    END IF;
    RETURN version;
END $$;


ALTER FUNCTION darkroom.require_semver(version text) OWNER TO darkroom;

--
-- Name: rescue_expired_leases(); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.rescue_expired_leases() RETURNS TABLE(job_id bigint, new_state text, worker text, crashes integer)
    LANGUAGE plpgsql
    AS $$
DECLARE
    crash_limit int := coalesce(darkroom.setting('crash_limit')::int, 3);
BEGIN
    RETURN QUERY
    WITH expired AS MATERIALIZED (
        SELECT j.id, j.leased_by, j.crashes + 1 AS crashes,
               j.crashes + 1 >= crash_limit AS crash_loop, j.attempts >= j.max_attempts AS out_of_attempts
          FROM darkroom.jobs AS j
         WHERE j.state = 'running' AND j.lease_expires_at < now()
           FOR UPDATE SKIP LOCKED
    ), reasons AS (
        SELECT e.*,
               CASE WHEN e.crash_loop THEN 'crash_loop' ELSE 'lease_expired' END AS code,
               CASE WHEN e.crash_loop THEN
                   format('crash loop: the worker running this job stopped heartbeating %s times in a row '
                          '(killed, out of memory or crashed mid-render; last %s); parked as failed so it cannot '
                          'take the fleet down. Check the original and the worker logs, then SELECT darkroom.retry_job(%s)',
                          e.crashes, e.leased_by, e.id)
               ELSE format('lease expired (worker %s stopped heartbeating)', e.leased_by) END AS reason
          FROM expired AS e
    )
    UPDATE darkroom.jobs AS j
       SET state = CASE WHEN r.crash_loop OR r.out_of_attempts THEN 'failed' ELSE 'queued' END,
           finished_at = CASE WHEN r.crash_loop OR r.out_of_attempts THEN now() END,
           crashes = r.crashes,
           last_error = r.reason,
           errors = j.errors || jsonb_build_array(jsonb_build_object(
               'attempt', j.attempts, 'at', now(), 'code', r.code, 'message', r.reason, 'worker', r.leased_by)),
           lease_token = NULL, lease_expires_at = NULL
      FROM reasons AS r
     WHERE j.id = r.id
    RETURNING j.id, j.state, r.leased_by, r.crashes;
END $$;


ALTER FUNCTION darkroom.rescue_expired_leases() OWNER TO darkroom;

--
-- Name: retry_batch(text, boolean); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.retry_batch(batch text, include_cancelled boolean DEFAULT false) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    changed bigint;
BEGIN
    IF retry_batch.batch IS NULL OR include_cancelled IS NULL THEN
        RAISE EXCEPTION 'batch and include_cancelled must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j WHERE j.batch = retry_batch.batch) THEN
        RAISE EXCEPTION 'there is no batch %', quote_literal(retry_batch.batch) USING ERRCODE = 'no_data_found',
            HINT = 'batches are listed in darkroom.batch_summary';
    END IF;
    UPDATE darkroom.jobs AS j
       SET state = 'queued', attempts = 0, crashes = 0, run_at = now(), started_at = NULL, finished_at = NULL
     WHERE j.batch = retry_batch.batch
       AND (j.state = 'failed' OR (include_cancelled AND j.state = 'cancelled'));
    GET DIAGNOSTICS changed = ROW_COUNT;
    IF changed > 0 THEN PERFORM pg_notify('darkroom_jobs', ''); END IF;
    RETURN changed;
END $$;


ALTER FUNCTION darkroom.retry_batch(batch text, include_cancelled boolean) OWNER TO darkroom;

--
-- Name: retry_job(bigint); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.retry_job(job_id bigint) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
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
       SET state = 'queued', attempts = 0, crashes = 0, run_at = now(), started_at = NULL, finished_at = NULL
     WHERE j.id = retry_job.job_id;
    PERFORM pg_notify('darkroom_jobs', '');
    RETURN true;
END $$;


ALTER FUNCTION darkroom.retry_job(job_id bigint) OWNER TO darkroom;

--
-- Name: reverse_dns_problem(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.reverse_dns_problem(identifier text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$
    SELECT CASE WHEN length(identifier) <= 255
                 AND identifier ~ '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$'
                THEN NULL ELSE darkroom.reverse_dns_problem_detail(identifier) END
$_$;


ALTER FUNCTION darkroom.reverse_dns_problem(identifier text) OWNER TO darkroom;

--
-- Name: semver_problem(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.semver_problem(version text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$
    SELECT CASE WHEN length(version) <= 255
                 AND version ~ '^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})(\.(0|[1-9][0-9]{0,8}))?(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'
                THEN NULL ELSE darkroom.semver_problem_detail(version) END
$_$;


ALTER FUNCTION darkroom.semver_problem(version text) OWNER TO darkroom;

--
-- Name: setting(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.setting(name text) RETURNS text
    LANGUAGE sql STABLE
    AS $$
    SELECT s.value FROM darkroom.settings AS s WHERE s.name = setting.name
$$;


ALTER FUNCTION darkroom.setting(name text) OWNER TO darkroom;

--
-- Name: setting_problem(text, text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.setting_problem(name text, value text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    AS $_$
BEGIN
    CASE name
    WHEN 'crash_limit' THEN
        IF value !~ '^[1-9][0-9]{0,2}$' THEN RETURN 'crash_limit must be a whole number from 1 to 999'; END IF;
    WHEN 'keep_succeeded', 'keep_failed', 'keep_cancelled', 'forget_workers_after' THEN
        BEGIN
            IF value::interval < interval '0' THEN RETURN format('%s must not be negative', name); END IF;
        EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR interval_field_overflow THEN
            RETURN format('%s must be an interval such as ''7 days'', got %L', name, value);
        END;
    ELSE
        RETURN format('unknown setting %L; see SELECT * FROM darkroom.settings', name);
    END CASE;
    RETURN NULL;
END $_$;


ALTER FUNCTION darkroom.setting_problem(name text, value text) OWNER TO darkroom;

--
-- Name: worker_stopped(text); Type: FUNCTION; Schema: darkroom; Owner: darkroom
--

CREATE FUNCTION darkroom.worker_stopped(worker_name text) RETURNS void
    LANGUAGE sql
    AS $$
    DELETE FROM darkroom.workers WHERE name = worker_name
$$;


ALTER FUNCTION darkroom.worker_stopped(worker_name text) OWNER TO darkroom;

--
-- Name: adjustments; Type: TABLE; Schema: darkroom; Owner: darkroom
--

CREATE TABLE darkroom.adjustments (
    id bigint NOT NULL,
    asset_id bigint NOT NULL,
    job_id bigint,
    format_identifier text NOT NULL,
    format_version text NOT NULL,
    data bytea NOT NULL,
    base_adjustment_id bigint,
    rendered_path text NOT NULL,
    rendered_width integer NOT NULL,
    rendered_height integer NOT NULL,
    rendered_bytes bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    rerender_of bigint,
    CONSTRAINT adjustments_format_identifier_is_reverse_dns CHECK ((darkroom.reverse_dns_problem_detail(format_identifier) IS NULL)),
    CONSTRAINT adjustments_format_version_is_semver CHECK ((darkroom.semver_problem_detail(format_version) IS NULL)),
    CONSTRAINT adjustments_rendered_size_positive CHECK (((rendered_width > 0) AND (rendered_height > 0) AND (rendered_bytes >= 0)))
);


ALTER TABLE darkroom.adjustments OWNER TO darkroom;

--
-- Name: adjustments_id_seq; Type: SEQUENCE; Schema: darkroom; Owner: darkroom
--

ALTER TABLE darkroom.adjustments ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME darkroom.adjustments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: asset_history; Type: TABLE; Schema: darkroom; Owner: darkroom
--

CREATE TABLE darkroom.asset_history (
    id bigint NOT NULL,
    asset_id bigint NOT NULL,
    job_id bigint,
    action text NOT NULL,
    adjustment_id bigint,
    previous_adjustment_id bigint,
    at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT asset_history_action_check CHECK ((action = ANY (ARRAY['edit'::text, 'revert'::text, 'revert_last'::text, 'rerender'::text])))
);


ALTER TABLE darkroom.asset_history OWNER TO darkroom;

--
-- Name: asset_history_id_seq; Type: SEQUENCE; Schema: darkroom; Owner: darkroom
--

ALTER TABLE darkroom.asset_history ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME darkroom.asset_history_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: assets; Type: TABLE; Schema: darkroom; Owner: darkroom
--

CREATE TABLE darkroom.assets (
    id bigint NOT NULL,
    original_path text NOT NULL,
    content_sha256 text NOT NULL,
    byte_size bigint NOT NULL,
    pixel_width integer NOT NULL,
    pixel_height integer NOT NULL,
    orientation integer DEFAULT 1 NOT NULL,
    latitude double precision,
    longitude double precision,
    altitude double precision,
    creation_date timestamp with time zone,
    current_adjustment_id bigint,
    metadata_warnings text,
    imported_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT assets_byte_size_not_negative CHECK ((byte_size >= 0)),
    CONSTRAINT assets_content_sha256_is_lowercase_hex CHECK ((content_sha256 ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT assets_latitude_in_range CHECK (((latitude >= ('-90'::integer)::double precision) AND (latitude <= (90)::double precision))),
    CONSTRAINT assets_longitude_in_range CHECK (((longitude >= ('-180'::integer)::double precision) AND (longitude <= (180)::double precision))),
    CONSTRAINT assets_orientation_is_exif CHECK (((orientation >= 1) AND (orientation <= 8))),
    CONSTRAINT assets_pixel_size_positive CHECK (((pixel_width > 0) AND (pixel_height > 0)))
);


ALTER TABLE darkroom.assets OWNER TO darkroom;

--
-- Name: assets_id_seq; Type: SEQUENCE; Schema: darkroom; Owner: darkroom
--

ALTER TABLE darkroom.assets ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME darkroom.assets_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: batch_summary; Type: VIEW; Schema: darkroom; Owner: darkroom
--

CREATE VIEW darkroom.batch_summary AS
 SELECT j.batch,
    count(*) AS total,
    count(*) FILTER (WHERE (j.state = 'queued'::text)) AS queued,
    count(*) FILTER (WHERE (j.state = 'running'::text)) AS running,
    count(*) FILTER (WHERE (j.state = 'succeeded'::text)) AS succeeded,
    count(*) FILTER (WHERE (j.state = 'failed'::text)) AS failed,
    count(*) FILTER (WHERE (j.state = 'cancelled'::text)) AS cancelled,
    min(j.created_at) AS created_at,
    max(j.finished_at) AS last_finished_at,
    round(((count(*) FILTER (WHERE ((j.finished_at > (now() - '00:10:00'::interval)) AND (j.state = ANY (ARRAY['succeeded'::text, 'failed'::text])))))::numeric / 600.0), 3) AS jobs_per_second,
        CASE
            WHEN (count(*) FILTER (WHERE ((j.finished_at > (now() - '00:10:00'::interval)) AND (j.state = ANY (ARRAY['succeeded'::text, 'failed'::text])))) > 0) THEN make_interval(secs => (round((((count(*) FILTER (WHERE (j.state = ANY (ARRAY['queued'::text, 'running'::text]))))::numeric * 600.0) / (count(*) FILTER (WHERE ((j.finished_at > (now() - '00:10:00'::interval)) AND (j.state = ANY (ARRAY['succeeded'::text, 'failed'::text])))))::numeric)))::double precision)
            ELSE NULL::interval
        END AS eta
   FROM darkroom.jobs j
  WHERE (j.batch IS NOT NULL)
  GROUP BY j.batch;


ALTER TABLE darkroom.batch_summary OWNER TO darkroom;

--
-- Name: failures; Type: VIEW; Schema: darkroom; Owner: darkroom
--

CREATE VIEW darkroom.failures AS
 SELECT j.id AS job_id,
    j.asset_id,
    j.batch,
    j.attempts,
    j.crashes,
    j.last_error,
    j.errors,
    j.finished_at
   FROM darkroom.jobs j
  WHERE (j.state = 'failed'::text)
  ORDER BY j.finished_at DESC, j.id DESC;


ALTER TABLE darkroom.failures OWNER TO darkroom;

--
-- Name: job_runs; Type: TABLE; Schema: darkroom; Owner: darkroom
--

CREATE TABLE darkroom.job_runs (
    id bigint NOT NULL,
    name text NOT NULL,
    params jsonb DEFAULT '{}'::jsonb NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    status text DEFAULT 'running'::text NOT NULL,
    result text,
    CONSTRAINT job_runs_status_check CHECK ((status = ANY (ARRAY['running'::text, 'succeeded'::text, 'failed'::text])))
);


ALTER TABLE darkroom.job_runs OWNER TO darkroom;

--
-- Name: job_runs_id_seq; Type: SEQUENCE; Schema: darkroom; Owner: darkroom
--

ALTER TABLE darkroom.job_runs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME darkroom.job_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: jobs_id_seq; Type: SEQUENCE; Schema: darkroom; Owner: darkroom
--

ALTER TABLE darkroom.jobs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME darkroom.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: queue_summary; Type: VIEW; Schema: darkroom; Owner: darkroom
--

CREATE VIEW darkroom.queue_summary AS
 SELECT s.state,
    count(j.id) AS count,
    min(j.run_at) AS oldest_run_at
   FROM (unnest(ARRAY['queued'::text, 'running'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text]) WITH ORDINALITY s(state, ordinal)
     LEFT JOIN darkroom.jobs j ON ((j.state = s.state)))
  GROUP BY s.state, s.ordinal
  ORDER BY s.ordinal;


ALTER TABLE darkroom.queue_summary OWNER TO darkroom;

--
-- Name: recent_failures; Type: VIEW; Schema: darkroom; Owner: darkroom
--

CREATE VIEW darkroom.recent_failures AS
 SELECT jobs.id AS job_id,
    jobs.asset_id,
    jobs.attempts,
    jobs.last_error,
    jobs.finished_at
   FROM darkroom.jobs
  WHERE (jobs.state = 'failed'::text)
  ORDER BY jobs.finished_at DESC, jobs.id DESC;


ALTER TABLE darkroom.recent_failures OWNER TO darkroom;

--
-- Name: schema_migrations; Type: TABLE; Schema: darkroom; Owner: darkroom
--

CREATE TABLE darkroom.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE darkroom.schema_migrations OWNER TO darkroom;

--
-- Name: settings; Type: TABLE; Schema: darkroom; Owner: darkroom
--

CREATE TABLE darkroom.settings (
    name text NOT NULL,
    value text NOT NULL,
    description text NOT NULL,
    CONSTRAINT settings_value_is_valid CHECK ((darkroom.setting_problem(name, value) IS NULL))
);


ALTER TABLE darkroom.settings OWNER TO darkroom;

--
-- Name: workers; Type: TABLE; Schema: darkroom; Owner: darkroom
--

CREATE TABLE darkroom.workers (
    name text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_seconds double precision NOT NULL,
    formats jsonb DEFAULT '[]'::jsonb NOT NULL,
    running integer DEFAULT 0 NOT NULL,
    stopping boolean DEFAULT false NOT NULL
)
WITH (fillfactor='50', autovacuum_vacuum_threshold='100');


ALTER TABLE darkroom.workers OWNER TO darkroom;

--
-- Name: worker_status; Type: VIEW; Schema: darkroom; Owner: darkroom
--

CREATE VIEW darkroom.worker_status AS
 SELECT w.name,
    w.host,
    w.pid,
    w.started_at,
    w.last_seen_at,
    (w.last_seen_at > (now() - make_interval(secs => ((2)::double precision * w.lease_seconds)))) AS alive,
    w.stopping,
    w.running,
    w.formats
   FROM darkroom.workers w
  ORDER BY w.name;


ALTER TABLE darkroom.worker_status OWNER TO darkroom;

--
-- Name: waiting_for_editor; Type: VIEW; Schema: darkroom; Owner: darkroom
--

CREATE VIEW darkroom.waiting_for_editor AS
 SELECT j.kind,
    j.format_identifier,
    j.format_version,
    count(*) AS jobs,
    min(j.created_at) AS oldest
   FROM darkroom.jobs j
  WHERE ((j.state = 'queued'::text) AND (j.format_identifier IS NOT NULL) AND (NOT (EXISTS ( SELECT 1
           FROM darkroom.worker_status w,
            LATERAL jsonb_array_elements(w.formats) f(value)
          WHERE (w.alive AND ((f.value ->> 'identifier'::text) = j.format_identifier) AND
                CASE j.kind
                    WHEN 'edit'::text THEN ((j.format_version_sort >= darkroom.semver_sort_key((f.value ->> 'min'::text))) AND (j.format_version_sort <= darkroom.semver_sort_key((f.value ->> 'max'::text))))
                    ELSE ((j.format_version_sort IS NULL) OR (darkroom.semver_sort_key((f.value ->> 'max'::text)) >= j.format_version_sort))
                END)))))
  GROUP BY j.kind, j.format_identifier, j.format_version;


ALTER TABLE darkroom.waiting_for_editor OWNER TO darkroom;

--
-- Name: adjustments adjustments_id_asset_unique; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.adjustments
    ADD CONSTRAINT adjustments_id_asset_unique UNIQUE (id, asset_id);


--
-- Name: adjustments adjustments_pkey; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.adjustments
    ADD CONSTRAINT adjustments_pkey PRIMARY KEY (id);


--
-- Name: asset_history asset_history_pkey; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.asset_history
    ADD CONSTRAINT asset_history_pkey PRIMARY KEY (id);


--
-- Name: assets assets_content_sha256_unique; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.assets
    ADD CONSTRAINT assets_content_sha256_unique UNIQUE (content_sha256);


--
-- Name: assets assets_pkey; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.assets
    ADD CONSTRAINT assets_pkey PRIMARY KEY (id);


--
-- Name: job_runs job_runs_pkey; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.job_runs
    ADD CONSTRAINT job_runs_pkey PRIMARY KEY (id);


--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: settings settings_pkey; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (name);


--
-- Name: workers workers_pkey; Type: CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.workers
    ADD CONSTRAINT workers_pkey PRIMARY KEY (name);


--
-- Name: adjustments_by_asset; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX adjustments_by_asset ON darkroom.adjustments USING btree (asset_id, id);


--
-- Name: adjustments_by_rendered_path; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX adjustments_by_rendered_path ON darkroom.adjustments USING btree (rendered_path);


--
-- Name: adjustments_one_per_job; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE UNIQUE INDEX adjustments_one_per_job ON darkroom.adjustments USING btree (job_id) WHERE (job_id IS NOT NULL);


--
-- Name: asset_history_by_asset; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX asset_history_by_asset ON darkroom.asset_history USING btree (asset_id, id);


--
-- Name: job_runs_by_name; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX job_runs_by_name ON darkroom.job_runs USING btree (name, started_at DESC);


--
-- Name: jobs_by_asset; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX jobs_by_asset ON darkroom.jobs USING btree (asset_id);


--
-- Name: jobs_by_batch; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX jobs_by_batch ON darkroom.jobs USING btree (batch, state) WHERE (batch IS NOT NULL);


--
-- Name: jobs_claim_order; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX jobs_claim_order ON darkroom.jobs USING btree (priority DESC, run_at, id) WHERE (state = 'queued'::text);


--
-- Name: jobs_finished; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX jobs_finished ON darkroom.jobs USING btree (finished_at) WHERE (state = ANY (ARRAY['succeeded'::text, 'failed'::text, 'cancelled'::text]));


--
-- Name: jobs_open_by_asset; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX jobs_open_by_asset ON darkroom.jobs USING btree (asset_id, id) WHERE (state = ANY (ARRAY['queued'::text, 'running'::text]));


--
-- Name: jobs_recent_failures; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX jobs_recent_failures ON darkroom.jobs USING btree (finished_at DESC, id DESC) WHERE (state = 'failed'::text);


--
-- Name: jobs_running; Type: INDEX; Schema: darkroom; Owner: darkroom
--

CREATE INDEX jobs_running ON darkroom.jobs USING btree (id) WHERE (state = 'running'::text);


--
-- Name: adjustments adjustments_append_only; Type: TRIGGER; Schema: darkroom; Owner: darkroom
--

CREATE TRIGGER adjustments_append_only BEFORE DELETE OR UPDATE ON darkroom.adjustments FOR EACH ROW EXECUTE FUNCTION darkroom.refuse_adjustment_changes();


--
-- Name: asset_history asset_history_append_only; Type: TRIGGER; Schema: darkroom; Owner: darkroom
--

CREATE TRIGGER asset_history_append_only BEFORE DELETE OR UPDATE ON darkroom.asset_history FOR EACH ROW EXECUTE FUNCTION darkroom.refuse_history_changes();


--
-- Name: jobs jobs_notify_workers; Type: TRIGGER; Schema: darkroom; Owner: darkroom
--

CREATE TRIGGER jobs_notify_workers AFTER INSERT ON darkroom.jobs REFERENCING NEW TABLE AS inserted_jobs FOR EACH STATEMENT EXECUTE FUNCTION darkroom.notify_jobs_inserted();


--
-- Name: adjustments adjustments_asset_id_fkey; Type: FK CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.adjustments
    ADD CONSTRAINT adjustments_asset_id_fkey FOREIGN KEY (asset_id) REFERENCES darkroom.assets(id) ON DELETE CASCADE;


--
-- Name: adjustments adjustments_base_same_asset; Type: FK CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.adjustments
    ADD CONSTRAINT adjustments_base_same_asset FOREIGN KEY (base_adjustment_id, asset_id) REFERENCES darkroom.adjustments(id, asset_id);


--
-- Name: asset_history asset_history_adjustment_same_asset; Type: FK CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.asset_history
    ADD CONSTRAINT asset_history_adjustment_same_asset FOREIGN KEY (adjustment_id, asset_id) REFERENCES darkroom.adjustments(id, asset_id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: asset_history asset_history_asset_id_fkey; Type: FK CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.asset_history
    ADD CONSTRAINT asset_history_asset_id_fkey FOREIGN KEY (asset_id) REFERENCES darkroom.assets(id) ON DELETE CASCADE;


--
-- Name: asset_history asset_history_previous_same_asset; Type: FK CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.asset_history
    ADD CONSTRAINT asset_history_previous_same_asset FOREIGN KEY (previous_adjustment_id, asset_id) REFERENCES darkroom.adjustments(id, asset_id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: assets assets_current_adjustment_same_asset; Type: FK CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.assets
    ADD CONSTRAINT assets_current_adjustment_same_asset FOREIGN KEY (current_adjustment_id, id) REFERENCES darkroom.adjustments(id, asset_id);


--
-- Name: jobs jobs_adjustment_same_asset; Type: FK CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.jobs
    ADD CONSTRAINT jobs_adjustment_same_asset FOREIGN KEY (adjustment_id, asset_id) REFERENCES darkroom.adjustments(id, asset_id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: jobs jobs_asset_id_fkey; Type: FK CONSTRAINT; Schema: darkroom; Owner: darkroom
--

ALTER TABLE ONLY darkroom.jobs
    ADD CONSTRAINT jobs_asset_id_fkey FOREIGN KEY (asset_id) REFERENCES darkroom.assets(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--


--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: darkroom; Owner: darkroom
--

COPY darkroom.schema_migrations (version, name, applied_at) FROM stdin;
1	initial	2026-11-23 07:02:59.317559+00
2	triggers	2026-11-23 07:02:59.317559+00
3	operator_api	2026-11-23 07:02:59.317559+00
4	queue_schema	2026-11-23 07:02:59.317559+00
5	leases	2026-11-23 07:02:59.317559+00
6	operator_batches	2026-11-23 07:02:59.317559+00
7	jobs_support	2026-11-23 07:02:59.317559+00
8	editing_model	2026-11-23 07:02:59.317559+00
9	fast_validators	2026-11-23 07:02:59.317559+00
\.


--
-- Data for Name: settings; Type: TABLE DATA; Schema: darkroom; Owner: darkroom
--

COPY darkroom.settings (name, value, description) FROM stdin;
crash_limit	3	a job whose worker died (its lease expired) this many attempts in a row is parked as failed
keep_succeeded	14 days	prune_jobs deletes succeeded jobs finished longer ago than this
keep_failed	90 days	prune_jobs deletes failed jobs finished longer ago than this
keep_cancelled	14 days	prune_jobs deletes cancelled jobs finished longer ago than this
forget_workers_after	1 day	prune_jobs forgets workers not seen for this long
\.


--
-- PostgreSQL database dump complete
--


