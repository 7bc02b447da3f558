-- Keeps darkroom.job_counts (migration 0015) true as jobs are added, removed and change state:
-- one delta row per (batch, state) a statement changed, appended by statement-level triggers,
-- so a bulk enqueue of 200 000 jobs adds one row, not 200 000.

CREATE OR REPLACE FUNCTION darkroom.count_added_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO darkroom.job_counts (batch, state, jobs, first_created_at)
    SELECT a.batch, a.state, count(*), min(a.created_at) FROM added_jobs AS a GROUP BY a.batch, a.state;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION darkroom.count_removed_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO darkroom.job_counts (batch, state, jobs)
    SELECT r.batch, r.state, -count(*) FROM removed_jobs AS r GROUP BY r.batch, r.state;
    RETURN NULL;
END $$;

-- Heartbeats update jobs too (their lease only): the join finds no moved row and adds nothing.
CREATE OR REPLACE FUNCTION darkroom.count_moved_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO darkroom.job_counts (batch, state, jobs)
    SELECT moved.batch, moved.state, sum(moved.jobs)
      FROM new_jobs AS n
      JOIN old_jobs AS o ON o.id = n.id
     CROSS JOIN LATERAL (VALUES (n.batch, n.state, 1), (o.batch, o.state, -1)) AS moved(batch, state, jobs)
     WHERE n.state IS DISTINCT FROM o.state OR n.batch IS DISTINCT FROM o.batch
     GROUP BY moved.batch, moved.state
    HAVING sum(moved.jobs) <> 0;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION darkroom.count_truncated_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM darkroom.job_counts;
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER jobs_count_added AFTER INSERT ON darkroom.jobs
    REFERENCING NEW TABLE AS added_jobs FOR EACH STATEMENT EXECUTE FUNCTION darkroom.count_added_jobs();
CREATE OR REPLACE TRIGGER jobs_count_removed AFTER DELETE ON darkroom.jobs
    REFERENCING OLD TABLE AS removed_jobs FOR EACH STATEMENT EXECUTE FUNCTION darkroom.count_removed_jobs();
CREATE OR REPLACE TRIGGER jobs_count_moved AFTER UPDATE ON darkroom.jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION darkroom.count_moved_jobs();
CREATE OR REPLACE TRIGGER jobs_count_truncated AFTER TRUNCATE ON darkroom.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION darkroom.count_truncated_jobs();

-- Folds the deltas of each key into one row, so reading the counts stays a few rows per batch.
-- Called by every worker's heartbeat; one runs at a time (the others return at once). Rows
-- that sum to zero stay while they remember when their batch was first queued.
CREATE OR REPLACE FUNCTION darkroom.compact_job_counts() RETURNS void
LANGUAGE plpgsql SECURITY INVOKER AS $$
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('darkroom.compact_job_counts')) THEN
        RETURN;
    END IF;
    WITH crowded AS (
        SELECT c.batch, c.state FROM darkroom.job_counts AS c GROUP BY c.batch, c.state HAVING count(*) > 1
    ), folded AS (
        DELETE FROM darkroom.job_counts AS c USING crowded
         WHERE c.batch IS NOT DISTINCT FROM crowded.batch AND c.state = crowded.state
        RETURNING c.batch, c.state, c.jobs, c.first_created_at
    )
    INSERT INTO darkroom.job_counts (batch, state, jobs, first_created_at)
    SELECT f.batch, f.state, sum(f.jobs), min(f.first_created_at) FROM folded AS f GROUP BY f.batch, f.state
    HAVING sum(f.jobs) <> 0 OR min(f.first_created_at) IS NOT NULL;
    -- The queued jobs per format (queued_job_formats.sql), folded on the same occasions.
    PERFORM darkroom.compact_queued_job_formats();
END $$;
