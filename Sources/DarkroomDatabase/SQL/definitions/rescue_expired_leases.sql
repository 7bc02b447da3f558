-- What happens to a job whose worker stopped heartbeating.

-- Whether any running job's lease has run out (its worker is gone; the next claim that can
-- lock the row puts it back). Every claim asks before it sweeps; a draining worker asks too.
-- PL/pgSQL keeps the query's plan for the session; a SECURITY DEFINER SQL function cannot be
-- inlined and would be parsed and planned again on every claim.
CREATE OR REPLACE FUNCTION darkroom.leases_have_expired() RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM darkroom.jobs AS j WHERE j.state = 'running' AND j.lease_expires_at < now());
END $$;

-- Running jobs whose lease ran out go back to the queue, or fail (attempt_fails_job): on their
-- last attempt, or when their worker died crash_limit times in a row (a crash loop: the job
-- kills workers, so it counts as a permanent failure).
-- Returns what it did. Every claim runs it first.
CREATE OR REPLACE FUNCTION darkroom.rescue_expired_leases()
RETURNS TABLE (job_id bigint, new_state text, worker text, crashes int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    crash_limit int;
BEGIN
    -- Every claim calls this; almost always nothing has expired, so look before locking.
    IF NOT darkroom.leases_have_expired() THEN
        RETURN;
    END IF;
    crash_limit := coalesce(darkroom.setting('crash_limit')::int, 3);
    RETURN QUERY
    WITH expired AS MATERIALIZED (
        SELECT j.id, j.leased_by, j.crashes + 1 AS crashes,
               j.crashes + 1 >= crash_limit AS crash_loop, j.attempts, j.max_attempts
          FROM darkroom.jobs AS j
         WHERE j.state = 'running' AND j.lease_expires_at < now()
           FOR UPDATE SKIP LOCKED
    ), reasons AS (
        SELECT e.*, darkroom.attempt_fails_job(e.crash_loop, e.attempts, e.max_attempts) AS fails,
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
       SET state = CASE WHEN r.fails THEN 'failed' ELSE 'queued' END,
           finished_at = CASE WHEN r.fails THEN now() END,
           crashes = r.crashes,
           last_error = r.reason,
           errors = j.errors || jsonb_build_array(jsonb_build_object(
               'attempt', j.attempts, 'at', now(), 'code', r.code, 'message', r.reason, 'worker', r.leased_by)),
           lease_token = NULL, lease_expires_at = NULL
      FROM reasons AS r
     WHERE j.id = r.id
    RETURNING j.id, j.state, r.leased_by, r.crashes;
END $$;
