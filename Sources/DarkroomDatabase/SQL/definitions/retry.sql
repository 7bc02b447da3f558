-- Failed (or cancelled) jobs back to the queue with fresh attempts; error history is kept.

-- Which jobs a retry reaches: failed ones, and cancelled ones unless a batch's retry leaves
-- them out. The one place this is decided; the asset_jobs view shows it per job.
CREATE OR REPLACE FUNCTION darkroom.job_can_be_retried(state text, include_cancelled boolean DEFAULT true)
RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT state = 'failed' OR (include_cancelled AND state = 'cancelled')
$$;

-- retry_job also resets the crash count, so a parked crash loop gets its full chances.
CREATE OR REPLACE FUNCTION darkroom.retry_job(job_id bigint) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
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
    PERFORM darkroom.record_action('retry_job', jsonb_build_object('job_id', retry_job.job_id),
        jsonb_build_object('retried', darkroom.job_can_be_retried(current_state), 'state_before', current_state));
    IF NOT darkroom.job_can_be_retried(current_state) THEN
        RAISE NOTICE 'job % is %; only failed or cancelled jobs can be retried', retry_job.job_id, current_state;
        RETURN false;
    END IF;
    UPDATE darkroom.jobs AS j
       SET state = 'queued', attempts = 0, crashes = 0, run_at = now(), started_at = NULL, finished_at = NULL
     WHERE j.id = retry_job.job_id;
    PERFORM pg_notify('darkroom_jobs', '');
    RETURN true;
END $$;

-- Queues a batch's failed (and, with include_cancelled, cancelled) jobs again with fresh
-- attempts, keeping their error history. One NOTIFY however many. Returns how many.
CREATE OR REPLACE FUNCTION darkroom.retry_batch(batch text, include_cancelled boolean DEFAULT false) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
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
       AND darkroom.job_can_be_retried(j.state, include_cancelled);
    GET DIAGNOSTICS changed = ROW_COUNT;
    IF changed > 0 THEN PERFORM pg_notify('darkroom_jobs', ''); END IF;
    PERFORM darkroom.record_action('retry_batch', jsonb_build_object('batch', retry_batch.batch, 'include_cancelled', include_cancelled),
                                   jsonb_build_object('retried', changed));
    RETURN changed;
END $$;
