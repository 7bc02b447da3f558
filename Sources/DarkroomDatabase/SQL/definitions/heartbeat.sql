-- Workers reporting in: alive, what they hold, what they can render; and leaving.

-- One round trip per worker process every few seconds: records the worker as alive and
-- extends the leases it still holds, and keeps its darkroom release (worker_release) and its
-- memory budget's use (memory_reserved: bytes its renders hold; memory_waiting: jobs waiting
-- for theirs), each NULL when it does not say. Returns one row per job asked about; a loss
-- (see darkroom.lease_loss) means the worker must stop that job and write nothing.
CREATE OR REPLACE FUNCTION darkroom.heartbeat(
    worker_name text, host text, pid int, lease_seconds double precision,
    job_ids bigint[], lease_tokens uuid[], formats jsonb DEFAULT '[]', stopping boolean DEFAULT false,
    worker_release text DEFAULT NULL, memory_reserved bigint DEFAULT NULL, memory_waiting int DEFAULT NULL
) RETURNS TABLE (job_id bigint, loss text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    problem text := darkroom.formats_problem(formats);
BEGIN
    IF worker_name IS NULL OR worker_name = '' OR length(worker_name) > 200 THEN
        RAISE EXCEPTION 'worker_name must be 1 to 200 characters' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF host IS NULL OR length(host) > 255 OR pid IS NULL OR pid <= 0 OR stopping IS NULL THEN
        RAISE EXCEPTION 'heartbeat needs a host of at most 255 characters, a positive pid and stopping true or false'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION '%', problem USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF cardinality(job_ids) IS DISTINCT FROM cardinality(lease_tokens) THEN
        RAISE EXCEPTION 'job_ids and lease_tokens must have the same length' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF darkroom.lease_problem(lease_seconds) IS NOT NULL THEN
        RAISE EXCEPTION '%', darkroom.lease_problem(lease_seconds) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF worker_release IS NOT NULL THEN
        PERFORM darkroom.require_semver(worker_release);
    END IF;
    IF memory_reserved < 0 OR memory_waiting < 0 THEN
        RAISE EXCEPTION 'memory_reserved and memory_waiting must not be negative'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO darkroom.workers AS w (name, host, pid, lease_seconds, formats, running, stopping, release,
                                       memory_reserved, memory_waiting)
    VALUES (worker_name, host, pid, lease_seconds, coalesce(formats, '[]'), coalesce(cardinality(job_ids), 0), stopping,
            worker_release, memory_reserved, memory_waiting)
    ON CONFLICT (name) DO UPDATE
       SET last_seen_at = now(), lease_seconds = EXCLUDED.lease_seconds, formats = EXCLUDED.formats,
           running = EXCLUDED.running, stopping = EXCLUDED.stopping, release = EXCLUDED.release,
           memory_reserved = EXCLUDED.memory_reserved, memory_waiting = EXCLUDED.memory_waiting;
    -- Every worker passes by here every few seconds: a fitting place to fold the job and
    -- library counts.
    PERFORM darkroom.compact_job_counts();
    PERFORM darkroom.compact_library_counts();
    RETURN QUERY
    WITH mine AS (
        SELECT m.id, m.token FROM unnest(job_ids, lease_tokens) AS m(id, token)
    ), extended AS (
        UPDATE darkroom.jobs AS j
           SET lease_expires_at = now() + make_interval(secs => lease_seconds)
          FROM mine
         WHERE j.id = mine.id AND darkroom.lease_loss(j, mine.token) IS NULL
        RETURNING j.id
    )
    SELECT mine.id, CASE WHEN extended.id IS NULL THEN coalesce(darkroom.lease_loss(j, mine.token), 'expired') END
      FROM mine
      LEFT JOIN extended ON extended.id = mine.id
      LEFT JOIN darkroom.jobs AS j ON j.id = mine.id;
END $$;

-- A worker leaving cleanly.
CREATE OR REPLACE FUNCTION darkroom.worker_stopped(worker_name text) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DELETE FROM darkroom.workers WHERE name = worker_name
$$;
