-- Cancelling a job or a whole batch. A running job notices at its next heartbeat.

-- Which jobs a cancel reaches: queued or running ones. The one place this is decided; the
-- asset_jobs view shows it per job (the dashboard offers Cancel from there).
CREATE OR REPLACE FUNCTION darkroom.job_can_be_cancelled(state text) RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT state IN ('queued', 'running')
$$;

-- Queued or running jobs become cancelled and return true. Clearing the lease means a worker
-- still rendering a cancelled job fails its lease check when it reports back, so it writes
-- nothing. A job that already finished is left alone: NOTICE and false.
CREATE OR REPLACE FUNCTION darkroom.cancel_job(job_id bigint) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
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
    PERFORM darkroom.record_action('cancel_job', jsonb_build_object('job_id', cancel_job.job_id),
        jsonb_build_object('cancelled', darkroom.job_can_be_cancelled(current_state), 'state_before', current_state));
    IF NOT darkroom.job_can_be_cancelled(current_state) THEN
        RAISE NOTICE 'job % is already %; nothing to cancel', cancel_job.job_id, current_state;
        RETURN false;
    END IF;
    UPDATE darkroom.jobs AS j
       SET state = 'cancelled', finished_at = now(), lease_token = NULL, lease_expires_at = NULL
     WHERE j.id = cancel_job.job_id;
    RETURN true;
END $$;

-- Cancels every queued or running job of a batch; running ones notice at their next
-- heartbeat and write nothing. Returns how many were cancelled.
CREATE OR REPLACE FUNCTION darkroom.cancel_batch(batch text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    changed bigint;
BEGIN
    IF cancel_batch.batch IS NULL THEN
        RAISE EXCEPTION 'batch must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'batches are listed in darkroom.batch_summary';
    END IF;
    UPDATE darkroom.jobs AS j
       SET state = 'cancelled', finished_at = now(), lease_token = NULL, lease_expires_at = NULL
     WHERE j.batch = cancel_batch.batch AND darkroom.job_can_be_cancelled(j.state);
    GET DIAGNOSTICS changed = ROW_COUNT;
    IF changed = 0 AND NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j WHERE j.batch = cancel_batch.batch) THEN
        RAISE EXCEPTION 'there is no batch %', quote_literal(cancel_batch.batch) USING ERRCODE = 'no_data_found',
            HINT = 'batches are listed in darkroom.batch_summary';
    END IF;
    PERFORM darkroom.record_action('cancel_batch', jsonb_build_object('batch', cancel_batch.batch),
                                   jsonb_build_object('cancelled', changed));
    RETURN changed;
END $$;
