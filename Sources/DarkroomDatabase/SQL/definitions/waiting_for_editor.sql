-- Queued jobs no live worker can run (darkroom.can_run): their editor is missing or too
-- old on every live worker. They wait rather than fail; this is where an operator sees them.
CREATE OR REPLACE VIEW darkroom.waiting_for_editor AS
SELECT j.kind, j.format_identifier, j.format_version, count(*) AS jobs, min(j.created_at) AS oldest
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
 GROUP BY j.kind, j.format_identifier, j.format_version;
