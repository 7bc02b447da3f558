-- Housekeeping: finished jobs and long-silent workers are forgotten after their keep_* setting.

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
