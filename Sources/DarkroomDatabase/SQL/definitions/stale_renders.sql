-- Stale renders: what a darkroom upgrade or a new rendition changed. A build is what a worker
-- renders with, as JSON: {"math": {"vignette": 2, ...}, "output": {"quality": 92, "chroma":
-- "4:4:4", "colour_profile": "source"}} (RenderBuild in DarkroomImaging writes it; each
-- adjustment record's rendered_with holds the same fields for its render). The renditions are
-- the library's (darkroom.current_renditions), compared with what each record wrote.

-- Why a render fingerprint (chain_states) is stale against `build`: 'math' when a darkroom
-- layer used an operation at a lower math version than the build's, 'output' when one's
-- quality, chroma subsampling or colour profile differs, 'rendition' when the top layer lacks
-- a current rendition at its current version (renditions_missing), 'unrecorded' when a record
-- says nothing (rendered before records kept it). Apple Photos layers are not darkroom's
-- renders (Apple's own, or kept): never stale for math, output or records, but their
-- renditions are scaled from the render they keep, so a top one can lack them. The one owner
-- of this rule: the counts, the dry run and the queueing all ask it, per fingerprint.
CREATE OR REPLACE FUNCTION darkroom.stale_reasons(fingerprint jsonb, build jsonb)
RETURNS TABLE (reason text)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT 'unrecorded' WHERE (stale_reasons.fingerprint ->> 'unrecorded')::boolean
    UNION ALL
    SELECT 'math' WHERE EXISTS (
           SELECT 1 FROM jsonb_array_elements(stale_reasons.fingerprint -> 'math') AS used
            WHERE jsonb_typeof(stale_reasons.build -> 'math' -> (used.value ->> 0)) = 'number'
              AND (stale_reasons.build -> 'math' -> (used.value ->> 0)) > (used.value -> 1))
    UNION ALL
    SELECT 'output' WHERE EXISTS (
           SELECT 1 FROM jsonb_array_elements(stale_reasons.fingerprint -> 'outputs') AS o
            WHERE (o.value -> 0) IS DISTINCT FROM (stale_reasons.build -> 'output' -> 'quality')
               OR (o.value -> 1) IS DISTINCT FROM (stale_reasons.build -> 'output' -> 'chroma')
               OR (o.value -> 2) IS DISTINCT FROM (stale_reasons.build -> 'output' -> 'colour_profile'))
    UNION ALL
    SELECT 'rendition' WHERE jsonb_typeof(stale_reasons.fingerprint -> 'top') = 'object'
       AND EXISTS (SELECT 1 FROM darkroom.renditions_missing(stale_reasons.fingerprint -> 'top'))
$$;

-- The fingerprints some asset has now that are stale against `build`, with their reasons and
-- how many assets have each (render_fingerprint_counts): a few rows whatever the library's size.
CREATE OR REPLACE FUNCTION darkroom.stale_fingerprints(build jsonb)
RETURNS TABLE (fingerprint_id bigint, reasons text[], assets bigint)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT c.fingerprint_id, array_agg(r.reason ORDER BY r.reason), min(c.assets)
      FROM darkroom.render_fingerprint_counts AS c
     CROSS JOIN LATERAL darkroom.stale_reasons(c.fingerprint, stale_fingerprints.build) AS r
     GROUP BY c.fingerprint_id
$$;

-- The assets stale against `build`, one row per reason: the stale fingerprints' assets, found
-- by index (asset_render_states), not by walking chains.
CREATE OR REPLACE FUNCTION darkroom.stale_renders(build jsonb)
RETURNS TABLE (asset_id bigint, reason text)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT s.asset_id, r.reason
      FROM darkroom.stale_fingerprints(stale_renders.build) AS f
      JOIN darkroom.asset_render_states AS s ON s.fingerprint_id = f.fingerprint_id
     CROSS JOIN LATERAL unnest(f.reasons) AS r(reason)
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
    WITH stale AS (SELECT f.reasons, f.assets FROM darkroom.stale_fingerprints(stale_counts.build) AS f)
    SELECT r.reason, sum(f.assets)::bigint
      FROM stale AS f CROSS JOIN LATERAL unnest(f.reasons) AS r(reason)
     GROUP BY r.reason
    UNION ALL
    SELECT 'any', coalesce(sum(f.assets), 0)::bigint FROM stale AS f
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
      FROM (SELECT s.asset_id, CASE WHEN f.reasons = ARRAY['rendition'] THEN 'renditions' ELSE 'rerender' END AS kind
              FROM darkroom.stale_fingerprints(enqueue_stale_rerender.build) AS f
              JOIN darkroom.asset_render_states AS s ON s.fingerprint_id = f.fingerprint_id) AS stale
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
    RETURN (SELECT coalesce(sum(f.assets), 0)::bigint FROM darkroom.stale_fingerprints(stale_count.build) AS f);
END $$;
