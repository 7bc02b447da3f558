-- Which worker may claim what, and in which order: decided here and nowhere else.

-- How long a lease may be, the one place: at least 3 seconds (the heartbeat comes every third
-- of it, so at least once a second) and at most a day. NULL when fine, else what is wrong;
-- claim_jobs and heartbeat refuse with it, and `darkroom worker --lease` asks it first.
CREATE OR REPLACE FUNCTION darkroom.lease_problem(lease_seconds double precision) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE WHEN lease_seconds IS NULL OR NOT lease_seconds BETWEEN 3 AND 86400
                THEN format('a lease must be 3 to 86400 seconds, got %s', coalesce(lease_seconds::text, 'none')) END
$$;

-- The oldest darkroom release that runs a job right, decided here and nowhere else (NULL: any).
-- A filter upgrade (jobs.filter_name) needs 0.24.0, the first whose worker rewrites the chain
-- it replays (darkroom.upgrade_filter_data): an older one would render the chain unchanged.
CREATE OR REPLACE FUNCTION darkroom.oldest_release_for(filter_name text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN oldest_release_for.filter_name IS NOT NULL THEN '0.24.0' END
$$;

-- Leases up to max_jobs due jobs to worker_name: highest priority first, then oldest run_at,
-- skipping rows other claims hold (never waiting for them). One scan of jobs_claim_order,
-- stopping after max_jobs rows. Expired leases are rescued first.
-- With formats ([{"identifier", "min", "max"}]), only jobs darkroom.can_run allows: the
-- others wait for a worker that can render them (darkroom.waiting_for_editor lists them).
-- worker_release is the worker's darkroom version: a job that needs a newer one
-- (oldest_release_for) waits for a worker that has it; NULL (a worker that does not say)
-- claims only jobs any release runs.
-- The jobs of one asset run one at a time, highest priority first and in queue order within
-- a priority: edits and reverts apply in the order they were queued, and an interactive edit
-- is not stuck behind the asset's low-priority re-render (which then replays the chain with
-- the edit in it).
CREATE OR REPLACE FUNCTION darkroom.claim_jobs(
    worker_name text, max_jobs int, lease_seconds double precision, formats jsonb DEFAULT NULL,
    worker_release text DEFAULT NULL
) RETURNS SETOF darkroom.jobs
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
-- A custom plan per call costs more than the claim itself; the generic one is as good.
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    problem text := CASE WHEN formats IS NOT NULL THEN darkroom.formats_problem(formats) END;
    identifiers text[];
    lows text[];
    highs text[];
    release_key text;
BEGIN
    IF worker_name IS NULL OR worker_name = '' OR length(worker_name) > 200 THEN
        RAISE EXCEPTION 'worker_name must be 1 to 200 characters' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF max_jobs IS NULL OR max_jobs NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION 'max_jobs must be between 1 and 1000, got %', max_jobs USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF darkroom.lease_problem(lease_seconds) IS NOT NULL THEN
        RAISE EXCEPTION '%', darkroom.lease_problem(lease_seconds) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION '%', problem USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF worker_release IS NOT NULL THEN
        release_key := darkroom.semver_sort_key(darkroom.require_semver(worker_release));
    END IF;
    IF darkroom.leases_have_expired() THEN  -- almost always not: skip the sweep's call
        PERFORM darkroom.rescue_expired_leases();
    END IF;
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
           AND (identifiers IS NULL
                OR darkroom.can_run(j.kind, j.asset_id, j.format_identifier, j.format_version_sort, identifiers, lows, highs))
           AND (j.filter_name IS NULL
                OR release_key COLLATE "C"
                   >= darkroom.semver_sort_key(darkroom.oldest_release_for(j.filter_name)) COLLATE "C")
           AND NOT EXISTS (
                SELECT 1 FROM darkroom.jobs AS other
                 WHERE other.asset_id = j.asset_id AND other.id <> j.id AND other.state IN ('queued', 'running')
                   AND (other.state = 'running' OR other.priority > j.priority
                        OR (other.priority = j.priority AND other.id < j.id)))
         ORDER BY j.priority DESC, j.run_at, j.id
         LIMIT max_jobs
           FOR UPDATE SKIP LOCKED
    )
    -- = ANY (ARRAY(...)) rather than a join: the cached plan cannot know max_jobs, and for a
    -- join it may pick a hash join that reads every row of the table.
    UPDATE darkroom.jobs AS j
       SET state = 'running', attempts = j.attempts + 1, lease_token = gen_random_uuid(),
           leased_by = worker_name, lease_expires_at = now() + make_interval(secs => lease_seconds),
           started_at = now()
     WHERE j.id = ANY (ARRAY(SELECT next.id FROM next))
    RETURNING j.*;
END $$;
