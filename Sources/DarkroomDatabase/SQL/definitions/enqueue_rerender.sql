-- Queueing re-renders after an editor upgrade.

-- After an editor upgrade: queues one re-render per asset that darkroom.rerender_scope says
-- has a layer in format_identifier (below below_version, if given), in one INSERT ... SELECT (one
-- NOTIFY), skipping assets with the same re-render already queued or running. Workers
-- that write below below_version do not claim these jobs. Returns how many were queued.
CREATE OR REPLACE FUNCTION darkroom.enqueue_rerender(
    format_identifier text, below_version text DEFAULT NULL, priority int DEFAULT -20, batch text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    queued bigint;
BEGIN
    PERFORM darkroom.require_reverse_dns(enqueue_rerender.format_identifier);
    IF below_version IS NOT NULL THEN
        PERFORM darkroom.require_semver(below_version);
    END IF;
    PERFORM darkroom.require_job_options(priority, batch);
    INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version, priority, batch)
    SELECT scope.asset_id, 'rerender', enqueue_rerender.format_identifier, below_version,
           enqueue_rerender.priority, enqueue_rerender.batch
      FROM darkroom.rerender_scope(enqueue_rerender.format_identifier, below_version,
               ARRAY(SELECT s.id FROM darkroom.assets AS s WHERE s.current_adjustment_id IS NOT NULL)) AS scope
     WHERE NOT EXISTS (
           SELECT 1 FROM darkroom.jobs AS j
            WHERE j.asset_id = scope.asset_id AND j.state IN ('queued', 'running') AND j.kind = 'rerender'
              AND j.format_identifier IS NOT DISTINCT FROM enqueue_rerender.format_identifier
              AND j.format_version IS NOT DISTINCT FROM below_version)
     ORDER BY scope.asset_id;
    GET DIAGNOSTICS queued = ROW_COUNT;
    PERFORM darkroom.record_action('enqueue_rerender', jsonb_build_object(
        'format_identifier', enqueue_rerender.format_identifier, 'below_version', below_version,
        'priority', priority, 'batch', batch), jsonb_build_object('queued', queued));
    RETURN queued;
END $$;
