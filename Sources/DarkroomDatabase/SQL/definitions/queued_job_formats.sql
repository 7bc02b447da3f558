-- Keeps darkroom.queued_job_formats (migration 0017) true: queued jobs per kind, format and
-- version, as jobs are added, removed and leave or re-enter the queue. One delta row per group
-- a statement changed, appended by statement-level triggers (like job_counts.sql).

CREATE OR REPLACE FUNCTION darkroom.count_added_queued_formats() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO darkroom.queued_job_formats (kind, format_identifier, format_version, format_version_sort, jobs)
    SELECT a.kind, a.format_identifier, a.format_version, a.format_version_sort, count(*)
      FROM added_jobs AS a WHERE a.state = 'queued'
     GROUP BY a.kind, a.format_identifier, a.format_version, a.format_version_sort;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION darkroom.count_removed_queued_formats() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO darkroom.queued_job_formats (kind, format_identifier, format_version, format_version_sort, jobs)
    SELECT r.kind, r.format_identifier, r.format_version, r.format_version_sort, -count(*)
      FROM removed_jobs AS r WHERE r.state = 'queued'
     GROUP BY r.kind, r.format_identifier, r.format_version, r.format_version_sort;
    RETURN NULL;
END $$;

-- Claims, retries, cancels: a job leaving or re-entering the queue moves one count. Heartbeats
-- (running jobs' leases) and anything else that keeps a job's queue membership add nothing.
CREATE OR REPLACE FUNCTION darkroom.count_moved_queued_formats() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO darkroom.queued_job_formats (kind, format_identifier, format_version, format_version_sort, jobs)
    SELECT m.kind, m.format_identifier, m.format_version, m.format_version_sort, sum(m.jobs)
      FROM new_jobs AS n
      JOIN old_jobs AS o ON o.id = n.id
     CROSS JOIN LATERAL (VALUES
           (n.kind, n.format_identifier, n.format_version, n.format_version_sort, CASE WHEN n.state = 'queued' THEN 1 ELSE 0 END),
           (o.kind, o.format_identifier, o.format_version, o.format_version_sort, CASE WHEN o.state = 'queued' THEN -1 ELSE 0 END))
           AS m(kind, format_identifier, format_version, format_version_sort, jobs)
     WHERE (n.state = 'queued' OR o.state = 'queued')
       AND (n.state IS DISTINCT FROM o.state
            OR (n.kind, n.format_identifier, n.format_version) IS DISTINCT FROM (o.kind, o.format_identifier, o.format_version))
     GROUP BY m.kind, m.format_identifier, m.format_version, m.format_version_sort
    HAVING sum(m.jobs) <> 0;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION darkroom.count_truncated_queued_formats() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM darkroom.queued_job_formats;
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER jobs_count_added_queued_formats AFTER INSERT ON darkroom.jobs
    REFERENCING NEW TABLE AS added_jobs FOR EACH STATEMENT EXECUTE FUNCTION darkroom.count_added_queued_formats();
CREATE OR REPLACE TRIGGER jobs_count_removed_queued_formats AFTER DELETE ON darkroom.jobs
    REFERENCING OLD TABLE AS removed_jobs FOR EACH STATEMENT EXECUTE FUNCTION darkroom.count_removed_queued_formats();
CREATE OR REPLACE TRIGGER jobs_count_moved_queued_formats AFTER UPDATE ON darkroom.jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION darkroom.count_moved_queued_formats();
CREATE OR REPLACE TRIGGER jobs_count_truncated_queued_formats AFTER TRUNCATE ON darkroom.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION darkroom.count_truncated_queued_formats();

-- Folds each group's deltas into one row (none when they sum to zero). compact_job_counts
-- calls it, so every worker's heartbeat does; one runs at a time, the others return at once.
CREATE OR REPLACE FUNCTION darkroom.compact_queued_job_formats() RETURNS void
LANGUAGE plpgsql SECURITY INVOKER AS $$
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('darkroom.compact_queued_job_formats')) THEN
        RETURN;
    END IF;
    WITH crowded AS (
        SELECT q.kind, q.format_identifier, q.format_version
          FROM darkroom.queued_job_formats AS q
         GROUP BY q.kind, q.format_identifier, q.format_version
        HAVING count(*) > 1 OR sum(q.jobs) = 0
    ), folded AS (
        DELETE FROM darkroom.queued_job_formats AS q USING crowded AS c
         WHERE q.kind = c.kind AND q.format_identifier IS NOT DISTINCT FROM c.format_identifier
           AND q.format_version IS NOT DISTINCT FROM c.format_version
        RETURNING q.kind, q.format_identifier, q.format_version, q.format_version_sort, q.jobs
    )
    INSERT INTO darkroom.queued_job_formats (kind, format_identifier, format_version, format_version_sort, jobs)
    SELECT f.kind, f.format_identifier, f.format_version, min(f.format_version_sort), sum(f.jobs)
      FROM folded AS f
     GROUP BY f.kind, f.format_identifier, f.format_version
    HAVING sum(f.jobs) <> 0;
END $$;
