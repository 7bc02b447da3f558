extension Migration {
    /// Bulk enqueue, cancel and retry by batch, housekeeping, and the views operators watch.
    static let operatorBatches = Migration(version: 6, name: "operator_batches", sql: #"""
        -- NULL when a batch name is fine (NULL itself means "no batch").
        CREATE OR REPLACE FUNCTION darkroom.batch_problem(batch text) RETURNS text
        LANGUAGE sql IMMUTABLE AS $$
            SELECT CASE
                WHEN batch IS NULL THEN NULL
                WHEN batch = '' THEN 'batch must not be empty; pass NULL for no batch'
                WHEN length(batch) > 200 THEN format('batch is %s characters long; the limit is 200', length(batch))
                WHEN batch ~ '[[:cntrl:]]' THEN 'batch must not contain control characters'
            END
        $$;

        -- Queues the same edit for many assets in one INSERT ... SELECT (so one NOTIFY), with the
        -- checks of enqueue_edit. Refuses the whole call, naming up to ten of them, if any asset is
        -- unknown. Returns (asset_id, job_id) per queued job.
        CREATE OR REPLACE FUNCTION darkroom.enqueue_edits(
            asset_ids bigint[], format_identifier text, format_version text, data bytea,
            priority int DEFAULT -10, batch text DEFAULT NULL
        ) RETURNS TABLE (asset_id bigint, job_id bigint)
        LANGUAGE plpgsql SECURITY INVOKER AS $$
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

        CREATE OR REPLACE FUNCTION darkroom.enqueue_edits(
            asset_ids bigint[], format_identifier text, format_version text, data jsonb,
            priority int DEFAULT -10, batch text DEFAULT NULL
        ) RETURNS TABLE (asset_id bigint, job_id bigint)
        LANGUAGE sql SECURITY INVOKER AS $$
            SELECT * FROM darkroom.enqueue_edits(asset_ids, format_identifier, format_version,
                                                 convert_to(data::text, 'UTF8'), priority, batch)
        $$;

        -- Cancels every queued or running job of a batch; running ones notice at their next
        -- heartbeat and write nothing. Returns how many were cancelled.
        CREATE OR REPLACE FUNCTION darkroom.cancel_batch(batch text) RETURNS bigint
        LANGUAGE plpgsql SECURITY INVOKER AS $$
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

        -- Queues a batch's failed (and, with include_cancelled, cancelled) jobs again with fresh
        -- attempts, keeping their error history. One NOTIFY however many. Returns how many.
        CREATE OR REPLACE FUNCTION darkroom.retry_batch(batch text, include_cancelled boolean DEFAULT false) RETURNS bigint
        LANGUAGE plpgsql SECURITY INVOKER AS $$
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

        -- retry_job also resets the crash count, so a parked crash loop gets its full chances.
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
               SET state = 'queued', attempts = 0, crashes = 0, run_at = now(), started_at = NULL, finished_at = NULL
             WHERE j.id = retry_job.job_id;
            PERFORM pg_notify('darkroom_jobs', '');
            RETURN true;
        END $$;

        -- Deletes up to batch_size finished jobs older than their keep_* setting (or the
        -- arguments), oldest first, and forgets long-silent workers. Returns how many jobs it
        -- deleted: call it until it returns 0 (darkroom job run prune does), so no single
        -- transaction holds many locks or creates a burst of dead rows.
        CREATE OR REPLACE FUNCTION darkroom.prune_jobs(
            keep_succeeded interval DEFAULT NULL, keep_failed interval DEFAULT NULL,
            keep_cancelled interval DEFAULT NULL, batch_size int DEFAULT 5000
        ) RETURNS bigint
        LANGUAGE plpgsql SECURITY INVOKER AS $$
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

        -- Per batch: counts by state, progress rate over the last ten minutes, and an ETA.
        CREATE OR REPLACE VIEW darkroom.batch_summary AS
        SELECT j.batch,
               count(*) AS total,
               count(*) FILTER (WHERE j.state = 'queued') AS queued,
               count(*) FILTER (WHERE j.state = 'running') AS running,
               count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
               count(*) FILTER (WHERE j.state = 'failed') AS failed,
               count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled,
               min(j.created_at) AS created_at,
               max(j.finished_at) AS last_finished_at,
               round(count(*) FILTER (WHERE j.finished_at > now() - interval '10 minutes'
                                        AND j.state IN ('succeeded', 'failed')) / 600.0, 3) AS jobs_per_second,
               CASE WHEN count(*) FILTER (WHERE j.finished_at > now() - interval '10 minutes' AND j.state IN ('succeeded', 'failed')) > 0
                    THEN make_interval(secs => round(
                         count(*) FILTER (WHERE j.state IN ('queued', 'running')) * 600.0
                         / count(*) FILTER (WHERE j.finished_at > now() - interval '10 minutes' AND j.state IN ('succeeded', 'failed'))))
               END AS eta
          FROM darkroom.jobs AS j
         WHERE j.batch IS NOT NULL
         GROUP BY j.batch;

        -- Failed jobs with their whole error history (one entry per attempt), newest first.
        CREATE OR REPLACE VIEW darkroom.failures AS
        SELECT j.id AS job_id, j.asset_id, j.batch, j.attempts, j.crashes, j.last_error, j.errors, j.finished_at
          FROM darkroom.jobs AS j
         WHERE j.state = 'failed'
         ORDER BY j.finished_at DESC, j.id DESC;

        -- Workers heard from within two leases are alive; the rest died or lost the database.
        CREATE OR REPLACE VIEW darkroom.worker_status AS
        SELECT w.name, w.host, w.pid, w.started_at, w.last_seen_at,
               w.last_seen_at > now() - make_interval(secs => 2 * w.lease_seconds) AS alive,
               w.stopping, w.running, w.formats
          FROM darkroom.workers AS w
         ORDER BY w.name;

        -- Queued jobs that no live worker can render (a newer editor is needed, or none knows the
        -- format): they wait rather than fail, and this is where an operator sees them.
        CREATE OR REPLACE VIEW darkroom.waiting_for_editor AS
        SELECT j.format_identifier, j.format_version, count(*) AS jobs, min(j.created_at) AS oldest
          FROM darkroom.jobs AS j
         WHERE j.state = 'queued'
           AND NOT EXISTS (
               SELECT 1 FROM darkroom.worker_status AS w, jsonb_array_elements(w.formats) AS f
                WHERE w.alive AND f->>'identifier' = j.format_identifier
                  AND j.format_version_sort BETWEEN darkroom.semver_sort_key(f->>'min') AND darkroom.semver_sort_key(f->>'max'))
         GROUP BY j.format_identifier, j.format_version;
        """#)
}
