-- Keeps darkroom.job_counts (migrations 0015 and 0020) true as jobs are added, removed and
-- change state: one delta row per batch, state, kind, format and version a statement changed,
-- appended by statement-level triggers, so a bulk enqueue of 200 000 jobs adds one row, not
-- 200 000. The queue summary and batch pages sum them by batch and state; the queued ones by
-- format are darkroom.queued_job_formats (queued_job_formats.sql). One trigger per kind of
-- statement on darkroom.jobs: each claim and completion runs one of them.

CREATE OR REPLACE FUNCTION darkroom.count_added_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO darkroom.job_counts (batch, state, kind, format_identifier, format_version, format_version_sort, jobs, first_created_at)
    SELECT a.batch, a.state, a.kind, a.format_identifier, a.format_version, a.format_version_sort, count(*), min(a.created_at)
      FROM added_jobs AS a
     GROUP BY a.batch, a.state, a.kind, a.format_identifier, a.format_version, a.format_version_sort;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION darkroom.count_removed_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO darkroom.job_counts (batch, state, kind, format_identifier, format_version, format_version_sort, jobs)
    SELECT r.batch, r.state, r.kind, r.format_identifier, r.format_version, r.format_version_sort, -count(*)
      FROM removed_jobs AS r
     GROUP BY r.batch, r.state, r.kind, r.format_identifier, r.format_version, r.format_version_sort;
    RETURN NULL;
END $$;

-- Each updated row counts +1 for its key after and -1 for its key before: a row whose key did
-- not change (a heartbeat extends only a lease) cancels out and adds nothing. A sum rather
-- than a join of the two transition tables, which costs each claim and completion more.
CREATE OR REPLACE FUNCTION darkroom.count_moved_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO darkroom.job_counts (batch, state, kind, format_identifier, format_version, format_version_sort, jobs)
    SELECT m.batch, m.state, m.kind, m.format_identifier, m.format_version, min(m.format_version_sort), sum(m.jobs)
      FROM (SELECT n.batch, n.state, n.kind, n.format_identifier, n.format_version, n.format_version_sort, 1 AS jobs
              FROM new_jobs AS n
            UNION ALL
            SELECT o.batch, o.state, o.kind, o.format_identifier, o.format_version, o.format_version_sort, -1
              FROM old_jobs AS o) AS m
     GROUP BY m.batch, m.state, m.kind, m.format_identifier, m.format_version
    HAVING sum(m.jobs) <> 0;
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
-- that sum to zero go, unless they remember when their batch was first queued.
CREATE OR REPLACE FUNCTION darkroom.compact_job_counts() RETURNS void
LANGUAGE plpgsql SECURITY INVOKER AS $$
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('darkroom.compact_job_counts')) THEN
        RETURN;
    END IF;
    WITH crowded AS (
        SELECT c.batch, c.state, c.kind, c.format_identifier, c.format_version
          FROM darkroom.job_counts AS c
         GROUP BY c.batch, c.state, c.kind, c.format_identifier, c.format_version
        HAVING count(*) > 1 OR (sum(c.jobs) = 0 AND min(c.first_created_at) IS NULL)
    ), folded AS (
        DELETE FROM darkroom.job_counts AS c USING crowded AS k
         WHERE c.batch IS NOT DISTINCT FROM k.batch AND c.state = k.state AND c.kind IS NOT DISTINCT FROM k.kind
           AND c.format_identifier IS NOT DISTINCT FROM k.format_identifier AND c.format_version IS NOT DISTINCT FROM k.format_version
        RETURNING c.batch, c.state, c.kind, c.format_identifier, c.format_version, c.format_version_sort, c.jobs, c.first_created_at
    )
    INSERT INTO darkroom.job_counts (batch, state, kind, format_identifier, format_version, format_version_sort, jobs, first_created_at)
    SELECT f.batch, f.state, f.kind, f.format_identifier, f.format_version, min(f.format_version_sort), sum(f.jobs), min(f.first_created_at)
      FROM folded AS f
     GROUP BY f.batch, f.state, f.kind, f.format_identifier, f.format_version
    HAVING sum(f.jobs) <> 0 OR min(f.first_created_at) IS NOT NULL;
END $$;
