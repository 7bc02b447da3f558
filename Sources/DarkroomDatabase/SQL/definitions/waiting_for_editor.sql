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
--  2. A layer only matters where some live worker cannot read it: can_run, asked whether that
--     worker could re-render just that layer's format and version, says so. The distinct
--     formats and versions of layers come from an index (a skip scan: a few probes).
--  3. The queued jobs of runnable groups on assets showing such a layer are asked can_run with
--     their asset, once for all jobs alike in what can_run reads (kind, format, version and the
--     asset's layers in order: one walk of all their chains). None, while every live worker
--     reads every layer.
CREATE OR REPLACE FUNCTION darkroom.waiting_for_editor_rows()
RETURNS TABLE (kind text, format_identifier text, format_version text, jobs bigint, oldest timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    WITH RECURSIVE editors AS MATERIALIZED (
        SELECT e.identifiers, e.lows, e.highs
          FROM darkroom.worker_status AS w
         CROSS JOIN LATERAL (
               SELECT coalesce(array_agg(f->>'identifier'), '{}') AS identifiers,
                      coalesce(array_agg(darkroom.semver_sort_key(f->>'min')), '{}') AS lows,
                      coalesce(array_agg(darkroom.semver_sort_key(f->>'max')), '{}') AS highs
                 FROM jsonb_array_elements(w.formats) AS f) AS e
         WHERE w.alive
    ), groups AS MATERIALIZED (
        SELECT q.kind, q.format_identifier, q.format_version, q.format_version_sort, q.jobs,
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
    ), unread_layers AS (
        SELECT l.format_identifier, l.format_version
          FROM layer_formats AS l
         WHERE EXISTS (SELECT 1 FROM editors AS e
                        WHERE NOT darkroom.can_run('rerender', NULL, l.format_identifier, darkroom.semver_sort_key(l.format_version),
                                                   e.identifiers, e.lows, e.highs))
    ), candidates AS MATERIALIZED (
        SELECT j.kind, j.asset_id, j.format_identifier, j.format_version, j.format_version_sort, j.created_at
          FROM (SELECT DISTINCT a.asset_id
                  FROM unread_layers AS u
                  JOIN darkroom.adjustments AS a
                    ON a.format_identifier = u.format_identifier AND a.format_version = u.format_version) AS shown
          JOIN darkroom.jobs AS j ON j.asset_id = shown.asset_id AND j.state = 'queued'
          JOIN groups AS g ON g.runnable AND g.kind = j.kind AND g.format_identifier IS NOT DISTINCT FROM j.format_identifier
                          AND g.format_version IS NOT DISTINCT FROM j.format_version
    ), chains AS (
        SELECT c.asset_id, array_agg(c.format_identifier || ' ' || c.format_version ORDER BY c.layer_number) AS layers
          FROM darkroom.current_chains(ARRAY(SELECT DISTINCT k.asset_id FROM candidates AS k)) AS c
         GROUP BY c.asset_id
    ), alike AS (
        -- Jobs alike in all can_run reads (kind, format, version, the asset's layers in order)
        -- get one answer: asked once, of one of their assets.
        SELECT k.kind, k.format_identifier, k.format_version, min(k.format_version_sort) AS format_version_sort,
               min(k.asset_id) AS example, count(*) AS jobs, min(k.created_at) AS oldest
          FROM candidates AS k
          LEFT JOIN chains AS ch ON ch.asset_id = k.asset_id
         GROUP BY k.kind, k.format_identifier, k.format_version, ch.layers
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
