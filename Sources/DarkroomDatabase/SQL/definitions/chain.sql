-- An asset's chain of layers, and the two rules decided from it: which worker can run a job
-- (its editors must read every layer the job renders) and which assets a re-render reaches.
-- The worker reads chains through these functions; it walks no chain of its own.

-- The layers each of the assets shows now, bottom first (layer_number 1 is rendered from the
-- original): its current adjustment and, through base_adjustment_id, every layer beneath it.
-- An asset that shows its original has no rows. One walk for one asset (ARRAY[id]: index
-- probes) or for a whole library at once (a hash join), so every caller shares it. The foreign
-- key on base_adjustment_id means a base always exists, and is always an older record.
-- (waiting_for_editor_rows follows the same links for thousands of assets at once and keeps
-- only the layers some live worker cannot read; WaitingForEditorTests hold it to can_run.)
CREATE OR REPLACE FUNCTION darkroom.current_chains(asset_ids bigint[])
RETURNS TABLE (asset_id bigint, layer_number int, layer_count int, adjustment_id bigint,
               format_identifier text, format_version text)
LANGUAGE sql STABLE AS $$
    WITH RECURSIVE walk AS (
        SELECT s.id AS asset_id, a.id, a.base_adjustment_id, a.format_identifier, a.format_version, 1 AS depth
          FROM unnest(current_chains.asset_ids) AS requested(id)
          JOIN darkroom.assets AS s ON s.id = requested.id
          JOIN darkroom.adjustments AS a ON a.id = s.current_adjustment_id
        UNION ALL
        SELECT w.asset_id, b.id, b.base_adjustment_id, b.format_identifier, b.format_version, w.depth + 1
          FROM walk AS w
          JOIN darkroom.adjustments AS b ON b.id = w.base_adjustment_id
    )
    SELECT w.asset_id, (count(*) OVER chain - w.depth + 1)::int, (count(*) OVER chain)::int,
           w.id, w.format_identifier, w.format_version
      FROM walk AS w
    WINDOW chain AS (PARTITION BY w.asset_id)
     ORDER BY w.asset_id, w.depth DESC
$$;

-- The assets among asset_ids a re-render of format_identifier (below below_version, if given)
-- still has work on: their current chain has such a layer. A whole-chain re-render (no
-- identifier) has work on every asset that shows a layer. enqueue_rerender queues by it; the
-- worker asks it again for its one asset when it runs the job (the chain may have changed).
CREATE OR REPLACE FUNCTION darkroom.rerender_scope(format_identifier text, below_version text, asset_ids bigint[])
RETURNS TABLE (asset_id bigint)
LANGUAGE sql STABLE AS $$
    SELECT DISTINCT layer.asset_id
      FROM darkroom.current_chains(rerender_scope.asset_ids) AS layer
     WHERE rerender_scope.format_identifier IS NULL
        OR (layer.format_identifier = rerender_scope.format_identifier
            AND (rerender_scope.below_version IS NULL
                 OR darkroom.semver_sort_key(layer.format_version) COLLATE "C"
                    < darkroom.semver_sort_key(rerender_scope.below_version)))
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
        -- Scaled from the top layer's stored render: no editor reads anything.
        WHEN 'renditions' THEN true
        WHEN 'edit' THEN EXISTS (
            SELECT 1 FROM unnest(can_run.identifiers, can_run.lows, can_run.highs) AS f(identifier, low, high)
             WHERE f.identifier = can_run.format_identifier
               AND can_run.format_version_sort COLLATE "C" BETWEEN f.low AND f.high)
        ELSE (can_run.kind <> 'rerender' OR can_run.format_identifier IS NULL OR EXISTS (
                 SELECT 1 FROM unnest(can_run.identifiers, can_run.highs) AS f(identifier, high)
                  WHERE f.identifier = can_run.format_identifier
                    AND (can_run.format_version_sort IS NULL OR f.high >= can_run.format_version_sort COLLATE "C")))
             AND NOT EXISTS (
                 SELECT 1 FROM darkroom.current_chains(ARRAY[can_run.asset_id]) AS layer
                  WHERE (can_run.kind <> 'revert_last' OR layer.layer_number < layer.layer_count)
                    AND NOT EXISTS (
                        SELECT 1 FROM unnest(can_run.identifiers, can_run.highs) AS f(identifier, high)
                         WHERE f.identifier = layer.format_identifier
                           AND darkroom.semver_sort_key(layer.format_version) COLLATE "C" <= f.high))
    END
$$;
