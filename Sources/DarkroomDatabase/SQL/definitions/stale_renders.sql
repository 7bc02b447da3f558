-- Stale renders: what a darkroom upgrade or a new rendition changed. A build is what a worker
-- renders with, as JSON: {"math": {"vignette": 2, ...}, "output": {"quality": 92, "chroma":
-- "4:4:4", "colour_profile": "source"}} (RenderBuild in DarkroomImaging writes it; each
-- adjustment record's rendered_with holds the same fields for its render). The renditions are
-- the library's (darkroom.current_renditions), compared with what each record wrote.

-- Why each layer of the current chains of asset_ids is stale against `build`: 'math' when an
-- operation it used has a lower math version than the build's, 'output' when its quality,
-- chroma subsampling or colour profile differs, 'rendition' when the top layer (the only one
-- with renditions) lacks a current rendition at its current version (missing_renditions),
-- 'unrecorded' when the record says nothing (rendered before records kept it). Apple Photos
-- layers are not darkroom's renders (Apple's own, or kept): never stale for math, output or
-- records, but their renditions are scaled from the render they keep, so a top one can lack
-- them. One row per asset and reason.
CREATE OR REPLACE FUNCTION darkroom.stale_renders(build jsonb, asset_ids bigint[])
RETURNS TABLE (asset_id bigint, reason text)
LANGUAGE sql STABLE AS $$
    SELECT DISTINCT layer.asset_id, why.reason
      FROM darkroom.current_chains(stale_renders.asset_ids) AS layer
      JOIN darkroom.adjustments AS a ON a.id = layer.adjustment_id
     CROSS JOIN LATERAL (SELECT layer.format_identifier = 'com.apple.photo' AS apple) AS kind
     CROSS JOIN LATERAL (
           SELECT 'unrecorded' WHERE a.rendered_with IS NULL AND NOT kind.apple
           UNION ALL
           SELECT 'math' WHERE NOT kind.apple AND EXISTS (
                  SELECT 1 FROM jsonb_each(a.rendered_with -> 'math') AS used(operation, version)
                   WHERE jsonb_typeof(stale_renders.build -> 'math' -> used.operation) = 'number'
                     AND (stale_renders.build -> 'math' -> used.operation) > used.version)
           UNION ALL
           SELECT 'output' WHERE a.rendered_with IS NOT NULL AND NOT kind.apple AND (
                  (a.rendered_with -> 'output' -> 'quality') IS DISTINCT FROM (stale_renders.build -> 'output' -> 'quality')
                  OR (a.rendered_with -> 'output' -> 'chroma') IS DISTINCT FROM (stale_renders.build -> 'output' -> 'chroma')
                  OR (a.rendered_with -> 'output' -> 'colour_profile')
                     IS DISTINCT FROM (stale_renders.build -> 'output' -> 'colour_profile'))
           UNION ALL
           SELECT 'rendition' WHERE (a.rendered_with IS NOT NULL OR kind.apple) AND layer.layer_number = layer.layer_count
              AND EXISTS (SELECT 1 FROM darkroom.missing_renditions(a.id))
           ) AS why(reason)
$$;

-- Refuses a build that is not the JSON above.
CREATE OR REPLACE FUNCTION darkroom.require_render_build(build jsonb) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF jsonb_typeof(build -> 'math') IS DISTINCT FROM 'object'
       OR jsonb_typeof(build -> 'output') IS DISTINCT FROM 'object'
       OR jsonb_typeof(build -> 'output' -> 'quality') IS DISTINCT FROM 'number'
       OR jsonb_typeof(build -> 'output' -> 'chroma') IS DISTINCT FROM 'string'
       OR jsonb_typeof(build -> 'output' -> 'colour_profile') IS DISTINCT FROM 'string' THEN
        RAISE EXCEPTION 'a render build needs "math" (operation: version) and "output" (quality, chroma, '
            'colour_profile), got %', left(coalesce(build::text, 'NULL'), 200)
            USING ERRCODE = 'invalid_parameter_value',
            HINT = 'darkroom rerender --stale --dry-run passes this build''s; see docs/filters.md';
    END IF;
END $$;

-- `darkroom rerender --stale --dry-run`: how many assets are stale against `build`, by reason
-- (an asset stale for two reasons counts under each), and 'any' (each asset once).
CREATE OR REPLACE FUNCTION darkroom.stale_counts(build jsonb)
RETURNS TABLE (reason text, assets bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM darkroom.require_render_build(stale_counts.build);
    RETURN QUERY
    WITH stale AS (
        SELECT s.asset_id, s.reason FROM darkroom.stale_renders(stale_counts.build,
            ARRAY(SELECT a.id FROM darkroom.assets AS a WHERE a.current_adjustment_id IS NOT NULL)) AS s
    )
    SELECT s.reason, count(*) FROM stale AS s GROUP BY s.reason
    UNION ALL
    SELECT 'any', count(DISTINCT s.asset_id) FROM stale AS s
     ORDER BY 1;
END $$;

-- Queues one job per asset stale against `build`, skipping assets with one already queued or
-- running: a renditions job (the top layer's missing renditions scaled from its stored render)
-- when renditions are all that is stale, else a whole-chain re-render (every layer replayed
-- with the worker's code, every output written again). Workers write with their own build: run
-- it with the build of the workers that will take the jobs. Returns how many were queued. The
-- operator API: audited, with the owner's rights.
CREATE OR REPLACE FUNCTION darkroom.enqueue_stale_rerender(build jsonb, priority int DEFAULT -20, batch text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    queued bigint;
BEGIN
    PERFORM darkroom.require_render_build(enqueue_stale_rerender.build);
    PERFORM darkroom.require_job_options(priority, batch);
    INSERT INTO darkroom.jobs (asset_id, kind, priority, batch)
    SELECT stale.asset_id, stale.kind, enqueue_stale_rerender.priority, enqueue_stale_rerender.batch
      FROM (SELECT s.asset_id, CASE WHEN bool_and(s.reason = 'rendition') THEN 'renditions' ELSE 'rerender' END AS kind
              FROM darkroom.stale_renders(enqueue_stale_rerender.build,
                       ARRAY(SELECT a.id FROM darkroom.assets AS a WHERE a.current_adjustment_id IS NOT NULL)) AS s
             GROUP BY s.asset_id) AS stale
     WHERE NOT EXISTS (
           SELECT 1 FROM darkroom.jobs AS j
            WHERE j.asset_id = stale.asset_id AND j.state IN ('queued', 'running')
              AND (j.kind = 'renditions' OR (j.kind = 'rerender' AND j.format_identifier IS NULL AND j.filter_name IS NULL)))
     ORDER BY stale.asset_id;
    GET DIAGNOSTICS queued = ROW_COUNT;
    PERFORM darkroom.record_action('enqueue_stale_rerender', jsonb_build_object(
        'build', enqueue_stale_rerender.build, 'priority', priority, 'batch', batch),
        jsonb_build_object('queued', queued));
    RETURN queued;
END $$;

-- The overview's stale count: assets stale against `build`, each once.
CREATE OR REPLACE FUNCTION darkroom.stale_count(build jsonb) RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM darkroom.require_render_build(stale_count.build);
    RETURN (SELECT count(DISTINCT s.asset_id) FROM darkroom.stale_renders(stale_count.build,
               ARRAY(SELECT a.id FROM darkroom.assets AS a WHERE a.current_adjustment_id IS NOT NULL)) AS s);
END $$;
