-- Queued jobs no live worker can run (darkroom.can_run): their editor is missing or too
-- old on every live worker. They wait rather than fail; this is where an operator sees them.
-- can_run reads asset chains, which viewers may not read, and a view's functions run with
-- the reader's rights: so the rows come from a function that runs with the owner's.
-- (Its result columns cannot change in place: a migration drops it first.)
CREATE OR REPLACE FUNCTION darkroom.waiting_for_editor_rows()
RETURNS TABLE (kind text, format_identifier text, format_version text, jobs bigint, oldest timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT j.kind, j.format_identifier, j.format_version, count(*), min(j.created_at)
      FROM darkroom.jobs AS j
     WHERE j.state = 'queued'
       AND NOT EXISTS (
           SELECT 1
             FROM darkroom.worker_status AS w
            CROSS JOIN LATERAL (
                  SELECT coalesce(array_agg(f->>'identifier'), '{}') AS identifiers,
                         coalesce(array_agg(darkroom.semver_sort_key(f->>'min')), '{}') AS lows,
                         coalesce(array_agg(darkroom.semver_sort_key(f->>'max')), '{}') AS highs
                    FROM jsonb_array_elements(w.formats) AS f) AS editors
            WHERE w.alive
              AND darkroom.can_run(j.kind, j.asset_id, j.format_identifier, j.format_version_sort,
                                   editors.identifiers, editors.lows, editors.highs))
     GROUP BY j.kind, j.format_identifier, j.format_version
$$;

CREATE OR REPLACE VIEW darkroom.waiting_for_editor AS
SELECT w.kind, w.format_identifier, w.format_version, w.jobs, w.oldest
  FROM darkroom.waiting_for_editor_rows() AS w;
