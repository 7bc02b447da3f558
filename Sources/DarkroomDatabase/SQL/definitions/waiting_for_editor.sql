-- Queued jobs no live worker can run (darkroom.can_run): their editor is missing or too
-- old on every live worker. They wait rather than fail; this is where an operator sees them.
-- can_run reads asset chains, which viewers may not read, and a view's functions run with
-- the reader's rights: so the rows come from a function that runs with the owner's.
-- (Its result columns cannot change in place: a migration drops it first.)
--
-- Exact without asking can_run of every queued job (a million take half a second):
--  1. Each group of queued jobs (kind, format, version; counted by queued_job_formats.sql) is
--     asked can_run once, for an asset with no layers (NULL): that decides edits and reverts
--     whole, and re-renders and revert_lasts on assets whose layers every live worker reads.
--  2. A layer only matters where some live worker cannot read it ("unread"): can_run, asked
--     whether that worker could re-render just that layer's format and version, says so. The
--     distinct formats and versions of layers come from an index (a skip scan: a few probes).
--     None, while every live worker reads every layer: then nothing below runs.
--  3. The queued jobs of runnable groups on assets that have an unread layer (shown or not) are
--     found from whichever end is smaller: the group's jobs (jobs_queued_by_format), or those
--     assets' open jobs (jobs_open_by_asset).
--  4. For each such job, the unread layers its asset shows now, in one walk of all their chains
--     (the links current_chains follows, chain.sql): the top from darkroom.assets, then down
--     base_adjustment_id. Only unread layers are collected: a layer every live worker reads
--     cannot change can_run's answer for any of them. (A top that is unread is known from that
--     layer's row, without reading darkroom.adjustments again.)
--  5. Jobs alike in all that can_run reads (kind, format, version, and which unread layers their
--     asset shows, top or below) get one answer: can_run asked once, with one of their assets.
-- jit is off: its compile time (about 0.2 s) is more than this query takes.
CREATE OR REPLACE FUNCTION darkroom.waiting_for_editor_rows()
RETURNS TABLE (kind text, format_identifier text, format_version text, jobs bigint, oldest timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET jit = off AS $$
    WITH RECURSIVE editors AS MATERIALIZED (
        -- Each distinct set of editors among live workers (a fleet is mostly alike).
        SELECT DISTINCT e.identifiers, e.lows, e.highs
          FROM darkroom.worker_status AS w
         CROSS JOIN LATERAL (
               SELECT coalesce(array_agg(f->>'identifier'), '{}') AS identifiers,
                      coalesce(array_agg(darkroom.semver_sort_key(f->>'min')), '{}') AS lows,
                      coalesce(array_agg(darkroom.semver_sort_key(f->>'max')), '{}') AS highs
                 FROM jsonb_array_elements(w.formats) AS f) AS e
         WHERE w.alive
    ), groups AS MATERIALIZED (
        SELECT row_number() OVER () AS n, q.kind, q.format_identifier, q.format_version, q.format_version_sort, q.jobs,
               EXISTS (SELECT 1 FROM editors AS e
                        WHERE darkroom.can_run(q.kind, NULL, q.format_identifier, q.format_version_sort,
                                               e.identifiers, e.lows, e.highs)) AS runnable
          FROM (SELECT c.kind, c.format_identifier, c.format_version, min(c.format_version_sort) AS format_version_sort,
                       sum(c.jobs)::bigint AS jobs
                  FROM darkroom.queued_job_formats AS c
                 GROUP BY c.kind, c.format_identifier, c.format_version
                HAVING sum(c.jobs) > 0) AS q
    ), layer_formats AS (
        (SELECT a.format_identifier, a.format_version FROM darkroom.adjustments AS a
          ORDER BY a.format_identifier, a.format_version LIMIT 1)
        UNION ALL
        SELECT n.format_identifier, n.format_version
          FROM layer_formats AS p
         CROSS JOIN LATERAL (
               SELECT a.format_identifier, a.format_version FROM darkroom.adjustments AS a
                WHERE (a.format_identifier, a.format_version) > (p.format_identifier, p.format_version)
                ORDER BY a.format_identifier, a.format_version LIMIT 1) AS n
    ), unread_formats AS MATERIALIZED (
        SELECT row_number() OVER () AS f, l.format_identifier, l.format_version
          FROM layer_formats AS l
         WHERE EXISTS (SELECT 1 FROM editors AS e
                        WHERE NOT darkroom.can_run('rerender', NULL, l.format_identifier, darkroom.semver_sort_key(l.format_version),
                                                   e.identifiers, e.lows, e.highs))
    ), unread AS MATERIALIZED (
        -- Every layer (adjustment record) in those formats, whether its asset shows it or not.
        SELECT a.id, a.asset_id, a.base_adjustment_id, u.f
          FROM unread_formats AS u
          JOIN darkroom.adjustments AS a
            ON a.format_identifier = u.format_identifier AND a.format_version = u.format_version
    ), candidates AS (
        SELECT g.n, j.asset_id, j.created_at
          FROM groups AS g
         CROSS JOIN LATERAL (
               -- Only one of these two runs for a group (the other's condition is false).
               -- "IS TRUE" keeps the IN a hashed lookup, whatever the planner guesses of sizes.
               SELECT j.asset_id, j.created_at
                 FROM darkroom.jobs AS j
                WHERE g.jobs <= (SELECT count(*) FROM unread)
                  AND j.state = 'queued' AND j.kind = g.kind
                  AND coalesce(j.format_identifier, '') = coalesce(g.format_identifier, '')
                  AND coalesce(j.format_version, '') = coalesce(g.format_version, '')
                  AND (j.asset_id IN (SELECT u.asset_id FROM unread AS u)) IS TRUE
               UNION ALL
               SELECT j.asset_id, j.created_at
                 FROM (SELECT DISTINCT u.asset_id FROM unread AS u) AS s
                 JOIN darkroom.jobs AS j ON j.asset_id = s.asset_id AND j.state = 'queued'
                WHERE g.jobs > (SELECT count(*) FROM unread)
                  AND j.kind = g.kind AND j.format_identifier IS NOT DISTINCT FROM g.format_identifier
                  AND j.format_version IS NOT DISTINCT FROM g.format_version) AS j
         WHERE g.runnable
    ), tops AS (
        -- From the asset's top layer: found, the unread layers seen so far (their formats'
        -- numbers, the top's negative); next_id, the layer below.
        SELECT k.n, k.asset_id, k.created_at,
               CASE WHEN t.id IS NULL THEN '{}'::bigint[] ELSE ARRAY[-t.f] END AS found,
               CASE WHEN t.id IS NOT NULL THEN t.base_adjustment_id
                    ELSE (SELECT a.base_adjustment_id FROM darkroom.adjustments AS a WHERE a.id = s.current_adjustment_id) END AS next_id
          FROM candidates AS k
          JOIN darkroom.assets AS s ON s.id = k.asset_id
          LEFT JOIN unread AS t ON t.id = s.current_adjustment_id
    ), firsts AS MATERIALIZED (
        -- Folded at once: the jobs whose walk ended at the top (by group and found), and those
        -- on one asset (a layer below, next_id, belongs to one asset), which walk on together.
        SELECT t.n, t.found, t.next_id, min(t.asset_id) AS example, count(*) AS jobs, min(t.created_at) AS oldest
          FROM tops AS t
         GROUP BY t.n, t.found, t.next_id
    ), below AS (
        SELECT p.n, p.found, p.next_id, p.example, p.jobs, p.oldest
          FROM firsts AS p WHERE p.next_id IS NOT NULL
        UNION ALL
        SELECT w.n, CASE WHEN u.f IS NULL THEN w.found ELSE w.found || u.f END, a.base_adjustment_id, w.example, w.jobs, w.oldest
          FROM below AS w
          JOIN darkroom.adjustments AS a ON a.id = w.next_id
          LEFT JOIN unread_formats AS u ON u.format_identifier = a.format_identifier AND u.format_version = a.format_version
    ), walked AS (
        SELECT p.n, p.found, p.example, p.jobs, p.oldest FROM firsts AS p WHERE p.next_id IS NULL
        UNION ALL
        SELECT w.n, w.found, w.example, w.jobs, w.oldest FROM below AS w WHERE w.next_id IS NULL
    ), alike AS (
        SELECT g.kind, g.format_identifier, g.format_version, g.format_version_sort, w.example, w.jobs, w.oldest
          FROM (SELECT w.n, min(w.example) AS example, sum(w.jobs) AS jobs, min(w.oldest) AS oldest
                  FROM walked AS w GROUP BY w.n, w.found) AS w
          JOIN groups AS g ON g.n = w.n
    ), blocked AS (
        SELECT a.kind, a.format_identifier, a.format_version, a.jobs, a.oldest
          FROM alike AS a
         WHERE NOT EXISTS (SELECT 1 FROM editors AS e
                            WHERE darkroom.can_run(a.kind, a.example, a.format_identifier, a.format_version_sort,
                                                   e.identifiers, e.lows, e.highs))
    )
    SELECT g.kind, g.format_identifier, g.format_version, g.jobs,
           (SELECT min(j.created_at) FROM darkroom.jobs AS j
             WHERE j.state = 'queued' AND j.kind = g.kind AND coalesce(j.format_identifier, '') = coalesce(g.format_identifier, '')
               AND coalesce(j.format_version, '') = coalesce(g.format_version, ''))
      FROM groups AS g
     WHERE NOT g.runnable
    UNION ALL
    SELECT b.kind, b.format_identifier, b.format_version, sum(b.jobs)::bigint, min(b.oldest)
      FROM blocked AS b
     GROUP BY b.kind, b.format_identifier, b.format_version
$$;

CREATE OR REPLACE VIEW darkroom.waiting_for_editor AS
SELECT w.kind, w.format_identifier, w.format_version, w.jobs, w.oldest
  FROM darkroom.waiting_for_editor_rows() AS w;
