-- An asset's chain of layers, and the two rules decided from it: which worker can run a job
-- (its editors must read every layer the job renders) and which assets a re-render reaches.
-- The worker reads chains through these functions; it walks no chain of its own.

-- The layers the asset shows now, bottom first: its current adjustment and, through
-- base_adjustment_id, every layer beneath it. Empty when it shows its original. The foreign
-- key on base_adjustment_id means a base always exists, and is always an older record.
CREATE OR REPLACE FUNCTION darkroom.current_chain(asset_id bigint)
RETURNS TABLE (layer_number int, layer_count int, adjustment_id bigint, format_identifier text, format_version text)
LANGUAGE sql STABLE AS $$
    WITH RECURSIVE walk AS (
        SELECT a.id, a.base_adjustment_id, a.format_identifier, a.format_version, 1 AS depth
          FROM darkroom.assets AS s
          JOIN darkroom.adjustments AS a ON a.id = s.current_adjustment_id
         WHERE s.id = current_chain.asset_id
        UNION ALL
        SELECT b.id, b.base_adjustment_id, b.format_identifier, b.format_version, w.depth + 1
          FROM walk AS w
          JOIN darkroom.adjustments AS b ON b.id = w.base_adjustment_id
    )
    SELECT (count(*) OVER () - w.depth + 1)::int, (count(*) OVER ())::int, w.id, w.format_identifier, w.format_version
      FROM walk AS w
     ORDER BY w.depth DESC
$$;

-- Whether a re-render of format_identifier (below below_version, if given) still has work on
-- the asset: its current chain has such a layer. A whole-chain re-render (no identifier) has
-- work whenever the asset shows any layer. enqueue_rerender queues by it; the worker asks it
-- again when it runs the job, since the chain may have changed in between.
CREATE OR REPLACE FUNCTION darkroom.rerender_needed(asset_id bigint, format_identifier text, below_version text)
RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT 1 FROM darkroom.current_chain(rerender_needed.asset_id) AS layer
         WHERE rerender_needed.format_identifier IS NULL
            OR (layer.format_identifier = rerender_needed.format_identifier
                AND (rerender_needed.below_version IS NULL
                     OR darkroom.semver_sort_key(layer.format_version) COLLATE "C"
                        < darkroom.semver_sort_key(rerender_needed.below_version))))
$$;

-- Whether a worker whose editors are (identifiers[i], reading lows[i] to highs[i], as
-- semver_sort_key values) can run a job. An edit needs its format and version readable. A
-- re-render of a named format needs a worker writing at least the target version. A
-- re-render, and a revert_last, also render layers of the asset's chain again (all of them,
-- or all but the top one): each needs its editor, at a version no newer than the editor
-- writes. Older versions are the editor's to read or refuse; no newer worker reads them
-- either. A revert renders nothing and goes to any worker.
-- claim_jobs claims only what this allows; waiting_for_editor lists what no live worker can run.
CREATE OR REPLACE FUNCTION darkroom.can_run(
    kind text, asset_id bigint, format_identifier text, format_version_sort text,
    identifiers text[], lows text[], highs text[]
) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT CASE can_run.kind
        WHEN 'revert' THEN true
        WHEN 'edit' THEN EXISTS (
            SELECT 1 FROM unnest(can_run.identifiers, can_run.lows, can_run.highs) AS f(identifier, low, high)
             WHERE f.identifier = can_run.format_identifier
               AND can_run.format_version_sort COLLATE "C" BETWEEN f.low AND f.high)
        ELSE (can_run.kind <> 'rerender' OR can_run.format_identifier IS NULL OR EXISTS (
                 SELECT 1 FROM unnest(can_run.identifiers, can_run.highs) AS f(identifier, high)
                  WHERE f.identifier = can_run.format_identifier
                    AND (can_run.format_version_sort IS NULL OR f.high >= can_run.format_version_sort COLLATE "C")))
             AND NOT EXISTS (
                 SELECT 1 FROM darkroom.current_chain(can_run.asset_id) AS layer
                  WHERE (can_run.kind <> 'revert_last' OR layer.layer_number < layer.layer_count)
                    AND NOT EXISTS (
                        SELECT 1 FROM unnest(can_run.identifiers, can_run.highs) AS f(identifier, high)
                         WHERE f.identifier = layer.format_identifier
                           AND darkroom.semver_sort_key(layer.format_version) COLLATE "C" <= f.high))
    END
$$;
