extension Migration {
    /// Claiming, heartbeats and the lease sweep as SQL functions: each is one statement, so
    /// they work through PgBouncer in transaction mode and from psql alike.
    static let leases = Migration(version: 5, name: "leases", sql: #"""
        CREATE OR REPLACE FUNCTION darkroom.setting(name text) RETURNS text
        LANGUAGE sql STABLE AS $$
            SELECT s.value FROM darkroom.settings AS s WHERE s.name = setting.name
        $$;

        -- formats: NULL for any job, else [{"identifier": "io.darkroom.pipeline", "min": "1.0", "max": "1.0.0"}]
        -- (inclusive). NULL when the list is fine, else what is wrong with it.
        CREATE OR REPLACE FUNCTION darkroom.formats_problem(formats jsonb) RETURNS text
        LANGUAGE plpgsql IMMUTABLE AS $$
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

        -- Running jobs whose lease ran out go back to the queue, or fail: on their last attempt, or
        -- when their worker died crash_limit times in a row (a crash loop: the job kills workers).
        -- Returns what it did. Every claim runs it first.
        CREATE OR REPLACE FUNCTION darkroom.rescue_expired_leases()
        RETURNS TABLE (job_id bigint, new_state text, worker text, crashes int)
        LANGUAGE plpgsql SECURITY INVOKER AS $$
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

        -- Leases up to max_jobs due jobs to worker_name: highest priority first, then oldest run_at,
        -- skipping rows other claims hold (never waiting for them) and jobs whose format and version
        -- are outside `formats` (they wait for a worker that can render them). One scan of
        -- jobs_claim_order, stopping after max_jobs rows.
        CREATE OR REPLACE FUNCTION darkroom.claim_jobs(
            worker_name text, max_jobs int, lease_seconds double precision, formats jsonb DEFAULT NULL
        ) RETURNS SETOF darkroom.jobs
        LANGUAGE plpgsql SECURITY INVOKER AS $$
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
                   AND (identifiers IS NULL OR EXISTS (
                        SELECT 1 FROM unnest(identifiers, lows, highs) AS f(identifier, low, high)
                         WHERE f.identifier = j.format_identifier AND j.format_version_sort BETWEEN f.low AND f.high))
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

        -- One round trip per worker process every few seconds: records the worker as alive and
        -- extends the leases it still holds. Returns one row per job asked about; held = false
        -- means the worker must stop that job and write nothing (state says why).
        CREATE OR REPLACE FUNCTION darkroom.heartbeat(
            worker_name text, host text, pid int, lease_seconds double precision,
            job_ids bigint[], lease_tokens uuid[], formats jsonb DEFAULT '[]', stopping boolean DEFAULT false
        ) RETURNS TABLE (job_id bigint, held boolean, state text)
        LANGUAGE plpgsql SECURITY INVOKER AS $$
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

        -- A worker leaving cleanly.
        CREATE OR REPLACE FUNCTION darkroom.worker_stopped(worker_name text) RETURNS void
        LANGUAGE sql SECURITY INVOKER AS $$
            DELETE FROM darkroom.workers WHERE name = worker_name
        $$;
        """#)
}
