-- A worker reporting on a job it leased: each report is one call and one transaction that
-- locks the job and checks the lease first, so a worker that lost its lease writes nothing.
-- Every report returns status ('done' or 'lease_lost', and for complete_job 'asset_changed')
-- and, when the lease is gone, darkroom.lease_loss's word for why.

-- Why `lease_token` no longer holds `job`, or NULL while it does: the state the job is in now
-- ('queued', 'succeeded', 'failed', 'cancelled'), 'taken_over' (running under another
-- worker's lease), 'expired' (still ours but run out) or 'deleted' (no such job). The one
-- vocabulary of lease loss: heartbeat answers with it too (LeaseLoss in Swift).
CREATE OR REPLACE FUNCTION darkroom.lease_loss(job darkroom.jobs, lease_token uuid) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN job.id IS NULL THEN 'deleted'
                WHEN job.state <> 'running' THEN job.state
                WHEN job.lease_token IS DISTINCT FROM lease_loss.lease_token THEN 'taken_over'
                WHEN job.lease_expires_at < now() THEN 'expired' END
$$;

-- Records what the job did: change 'layers' inserts new adjustment records bottom first (the
-- first based on first_base, each next one on the one before; the top one is the job's) and
-- makes the top one the asset's current adjustment; 'original' points the asset back at its
-- original; 'none' leaves it as it is. outcome says what a job without a new layer did. An
-- asset_history entry is written when the asset's look changed. With check_expected, the
-- asset must still show expected_current (NULL: its original), else nothing is written and
-- status is 'asset_changed' (the job runs again on what it shows now). layer_warnings is a
-- JSON array with one array of warnings per layer (NULL: none; workers older than migration 12
-- leave it out); each layer keeps its own in adjustments.warnings and the job keeps them all,
-- bottom layer first, in jobs.warnings.
CREATE OR REPLACE FUNCTION darkroom.complete_job(
    job_id bigint, lease_token uuid, check_expected boolean, expected_current bigint,
    change text, outcome text, first_base bigint,
    layer_formats text[], layer_versions text[], layer_data bytea[], layer_paths text[],
    layer_widths int[], layer_heights int[], layer_bytes bigint[], layer_rerender_of bigint[],
    layer_warnings jsonb DEFAULT NULL, layer_rendered_with jsonb DEFAULT NULL
) RETURNS TABLE (status text, loss text, current_adjustment_id bigint, adjustment_id bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    found record;
    job darkroom.jobs;
    previous bigint;
    current bigint;
    recorded bigint;
    base bigint := first_base;
    layer int;
    layer_count int := coalesce(cardinality(layer_formats), 0);
    job_warnings jsonb := '[]';
BEGIN
    IF change IS NULL OR change NOT IN ('layers', 'original', 'none') THEN
        RAISE EXCEPTION 'change must be layers, original or none, got %', quote_nullable(change)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (change = 'layers') <> (layer_count > 0) THEN
        RAISE EXCEPTION 'a completion with change % needs % layers', change, CASE WHEN change = 'layers' THEN 'one or more' ELSE 'no' END
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF layer_count > 0 AND ARRAY[cardinality(layer_versions), cardinality(layer_data), cardinality(layer_paths),
                                 cardinality(layer_widths), cardinality(layer_heights), cardinality(layer_bytes),
                                 cardinality(layer_rerender_of)] <> array_fill(layer_count, ARRAY[7]) THEN
        RAISE EXCEPTION 'every layer_* array must have one entry per layer (%)', layer_count
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR layer IN 1 .. layer_count LOOP
        IF NOT coalesce(darkroom.is_stored_path(layer_paths[layer]), false) THEN  -- inlined; the call below says why not
            PERFORM darkroom.require_stored_path(layer_paths[layer], format('layer %s''s rendered path', layer));
        END IF;
    END LOOP;
    -- A path query rather than a subquery: PL/pgSQL evaluates it without starting an executor.
    IF layer_warnings IS NOT NULL AND (jsonb_typeof(layer_warnings) <> 'array' OR jsonb_array_length(layer_warnings) <> layer_count
       OR jsonb_path_exists(layer_warnings, 'strict $[*] ? (@.type() != "array")')) THEN
        RAISE EXCEPTION 'layer_warnings must hold one array of warnings per layer (%), got %', layer_count, layer_warnings
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- The job and its asset, both locked, in one statement (a job's asset always exists:
    -- deleting it cascades).
    SELECT j AS job_row, a.current_adjustment_id AS current_id INTO found
      FROM darkroom.jobs AS j JOIN darkroom.assets AS a ON a.id = j.asset_id
     WHERE j.id = complete_job.job_id
       FOR UPDATE;
    job := found.job_row;
    previous := found.current_id;
    loss := darkroom.lease_loss(job, complete_job.lease_token);
    IF loss IS NOT NULL THEN
        status := 'lease_lost';
        RETURN NEXT;
        RETURN;
    END IF;
    IF check_expected AND previous IS DISTINCT FROM expected_current THEN
        status := 'asset_changed';
        current_adjustment_id := previous;
        RETURN NEXT;
        RETURN;
    END IF;
    current := CASE change WHEN 'none' THEN previous END;
    -- Layers below the top one (a re-render replaying a chain), each based on the one before.
    FOR layer IN 1 .. layer_count - 1 LOOP
        INSERT INTO darkroom.adjustments AS a (asset_id, job_id, format_identifier, format_version, data,
                                               base_adjustment_id, rendered_path, rendered_width, rendered_height,
                                               rendered_bytes, rerender_of, warnings, rendered_with)
        VALUES (job.asset_id, NULL, layer_formats[layer], layer_versions[layer],
                layer_data[layer], base, layer_paths[layer], layer_widths[layer], layer_heights[layer],
                layer_bytes[layer], layer_rerender_of[layer], coalesce(layer_warnings -> (layer - 1), '[]'),
                nullif(layer_rendered_with -> (layer - 1), 'null'))
        RETURNING a.id INTO base;
    END LOOP;
    FOR layer IN 1 .. layer_count LOOP
        job_warnings := job_warnings || coalesce(layer_warnings -> (layer - 1), '[]');
    END LOOP;
    -- One statement writes the rest: the top layer (the job's own record), the asset's move
    -- and its history entry if its look changed, and the job's success.
    WITH top AS (
        INSERT INTO darkroom.adjustments AS a (asset_id, job_id, format_identifier, format_version, data,
                                               base_adjustment_id, rendered_path, rendered_width, rendered_height,
                                               rendered_bytes, rerender_of, warnings, rendered_with)
        SELECT job.asset_id, job.id, layer_formats[layer_count], layer_versions[layer_count],
               layer_data[layer_count], base, layer_paths[layer_count], layer_widths[layer_count], layer_heights[layer_count],
               layer_bytes[layer_count], layer_rerender_of[layer_count], coalesce(layer_warnings -> (layer_count - 1), '[]'),
               nullif(layer_rendered_with -> (layer_count - 1), 'null')
         WHERE layer_count > 0
        RETURNING a.id
    ), written AS (
        SELECT (SELECT top.id FROM top) AS recorded,
               CASE WHEN layer_count > 0 THEN (SELECT top.id FROM top) ELSE current END AS current
    ), moved AS (
        UPDATE darkroom.assets AS a SET current_adjustment_id = written.current
          FROM written
         WHERE a.id = job.asset_id AND written.current IS DISTINCT FROM previous
        RETURNING a.id, written.current
    ), history AS (
        INSERT INTO darkroom.asset_history (asset_id, job_id, action, adjustment_id, previous_adjustment_id)
        SELECT moved.id, job.id, job.kind, moved.current, previous FROM moved
    )
    UPDATE darkroom.jobs AS j
       SET state = 'succeeded', finished_at = now(), adjustment_id = written.recorded,
           outcome = CASE WHEN change = 'layers' THEN NULL ELSE complete_job.outcome END, warnings = job_warnings,
           completed_lease = j.lease_token, lease_token = NULL, lease_expires_at = NULL, crashes = 0
      FROM written
     WHERE j.id = job.id
    RETURNING written.recorded, written.current INTO recorded, current;
    status := 'done';
    current_adjustment_id := current;
    adjustment_id := recorded;
    RETURN NEXT;
END $$;

-- Whether a failed attempt fails the job for good: a permanent failure (or a crash loop), or
-- the last attempt it was allowed. Otherwise it goes back to the queue. The one place this is
-- decided: fail_job and rescue_expired_leases ask it.
CREATE OR REPLACE FUNCTION darkroom.attempt_fails_job(permanent boolean, attempts int, max_attempts int)
RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT permanent OR attempts >= max_attempts
$$;

-- Records a failed attempt. attempt_fails_job decides whether the job fails for good or is
-- queued again after retry_delay_seconds (the worker's backoff); new_state says which.
CREATE OR REPLACE FUNCTION darkroom.fail_job(
    job_id bigint, lease_token uuid, permanent boolean, retry_delay_seconds double precision, code text, message text
) RETURNS TABLE (status text, loss text, new_state text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    job darkroom.jobs;
BEGIN
    IF permanent IS NULL OR code IS NULL OR code !~ '^[A-Za-z][A-Za-z0-9_]{0,63}$' OR message IS NULL
       OR retry_delay_seconds IS NULL OR retry_delay_seconds < 0 THEN
        RAISE EXCEPTION 'fail_job needs permanent true or false, a code (a letter, then up to 63 letters, digits or _), a message and a delay >= 0'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO job FROM darkroom.jobs AS j WHERE j.id = fail_job.job_id FOR UPDATE;
    loss := darkroom.lease_loss(job, fail_job.lease_token);
    IF loss IS NULL THEN
        new_state := CASE WHEN darkroom.attempt_fails_job(permanent, job.attempts, job.max_attempts)
                          THEN 'failed' ELSE 'queued' END;
        UPDATE darkroom.jobs AS j
           SET state = new_state,
               run_at = CASE WHEN new_state = 'queued' THEN now() + make_interval(secs => retry_delay_seconds) ELSE j.run_at END,
               finished_at = CASE WHEN new_state = 'failed' THEN now() END,
               last_error = code || ': ' || message,
               errors = j.errors || jsonb_build_array(jsonb_build_object(
                   'attempt', j.attempts, 'at', now(), 'code', code, 'message', message, 'worker', j.leased_by)),
               lease_token = NULL, lease_expires_at = NULL, crashes = 0
         WHERE j.id = job.id;
    END IF;
    status := CASE WHEN loss IS NULL THEN 'done' ELSE 'lease_lost' END;
    RETURN NEXT;
END $$;

-- Gives the job back without counting the attempt (the worker shuts down, or cannot run it)
-- and wakes other workers. With delay_seconds it becomes claimable only after that long.
CREATE OR REPLACE FUNCTION darkroom.release_job(
    job_id bigint, lease_token uuid, reason text DEFAULT NULL, delay_seconds double precision DEFAULT 0
) RETURNS TABLE (status text, loss text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    job darkroom.jobs;
BEGIN
    IF delay_seconds IS NULL OR delay_seconds < 0 THEN
        RAISE EXCEPTION 'delay_seconds must be 0 or more' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO job FROM darkroom.jobs AS j WHERE j.id = release_job.job_id FOR UPDATE;
    loss := darkroom.lease_loss(job, release_job.lease_token);
    IF loss IS NULL THEN
        UPDATE darkroom.jobs AS j
           SET state = 'queued', attempts = greatest(j.attempts - 1, 0), lease_token = NULL, lease_expires_at = NULL,
               crashes = 0, run_at = greatest(j.run_at, now() + make_interval(secs => delay_seconds)),
               last_error = coalesce(reason, j.last_error)
         WHERE j.id = job.id;
        PERFORM pg_notify('darkroom_jobs', '');
    END IF;
    status := CASE WHEN loss IS NULL THEN 'done' ELSE 'lease_lost' END;
    RETURN NEXT;
END $$;

-- After a connection broke during complete_job: whether that completion committed, i.e. the
-- job succeeded under this very lease. One row (with the adjustment it recorded, if any) if so.
CREATE OR REPLACE FUNCTION darkroom.completed_under_lease(job_id bigint, lease_token uuid)
RETURNS TABLE (adjustment_id bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT j.adjustment_id FROM darkroom.jobs AS j
     WHERE j.id = completed_under_lease.job_id AND j.state = 'succeeded'
       AND j.completed_lease = completed_under_lease.lease_token
$$;
