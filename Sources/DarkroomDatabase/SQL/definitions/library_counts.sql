-- Library figures kept current (migration 0032): each asset's render fingerprint and filter
-- versions, and how many assets have each, updated by statement triggers whenever an asset's
-- current chain or its top layer's renditions change. The stale counts, the filter dry runs
-- and filter_versions read the counts (a few rows); a roll-out finds its assets by index.

-- Each asset among asset_ids that shows a layer, with what its current chain says: its render
-- fingerprint ({"unrecorded": any darkroom layer without a record of its render, "math": the
-- distinct [operation, version] its darkroom layers used, "outputs": their distinct [quality,
-- chroma, colour profile], "top": written_renditions of the top layer, or null when it is a
-- darkroom layer with no record}) and the [name, version] of each filter a layer uses. Apple
-- Photos layers are Apple's renders (or kept): they add no math or output, but a top one has
-- renditions darkroom scales from it. Arrays are sorted, so equal chains give equal jsonb.
-- The chain walk is current_chains' with each step a LATERAL look-up by primary key, and
-- PL/pgSQL keeps one generic plan for the session: every completion asks this for one asset,
-- a custom plan cost more to make than the walk (0.4 ms against 0.15 ms), and a plan of joins
-- made for an array of unknown length scanned adjustments whole.
CREATE OR REPLACE FUNCTION darkroom.chain_states(asset_ids bigint[])
RETURNS TABLE (asset_id bigint, fingerprint jsonb, filters jsonb)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    RETURN QUERY
    WITH RECURSIVE walk AS (
        SELECT r.id AS asset_id, a.id, a.base_adjustment_id, a.format_identifier = 'com.apple.photo' AS apple,
               a.rendered_with, true AS top
          FROM unnest(chain_states.asset_ids) AS r(id)
         CROSS JOIN LATERAL (SELECT s.current_adjustment_id FROM darkroom.assets AS s WHERE s.id = r.id LIMIT 1) AS s
         CROSS JOIN LATERAL (SELECT x.id, x.base_adjustment_id, x.format_identifier, x.rendered_with
                               FROM darkroom.adjustments AS x WHERE x.id = s.current_adjustment_id LIMIT 1) AS a
        UNION ALL
        SELECT w.asset_id, b.id, b.base_adjustment_id, b.format_identifier = 'com.apple.photo', b.rendered_with, false
          FROM walk AS w
         CROSS JOIN LATERAL (SELECT x.id, x.base_adjustment_id, x.format_identifier, x.rendered_with
                               FROM darkroom.adjustments AS x WHERE x.id = w.base_adjustment_id LIMIT 1) AS b
    ), math AS (
        SELECT w.asset_id, jsonb_agg(DISTINCT jsonb_build_array(m.key, m.value)
                                     ORDER BY jsonb_build_array(m.key, m.value)) AS used
          FROM walk AS w
         CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(w.rendered_with -> 'math') = 'object'
                                            THEN w.rendered_with -> 'math' END) AS m
         WHERE NOT w.apple
         GROUP BY w.asset_id
    ), filter AS (
        -- A subquery per layer, so that its look-up stays one by index whatever the plan.
        SELECT w.asset_id, jsonb_agg(DISTINCT f.value ORDER BY f.value) AS used
          FROM walk AS w
         CROSS JOIN LATERAL jsonb_array_elements(
               (SELECT coalesce(jsonb_agg(jsonb_build_array(af.name, af.version)), '[]')
                  FROM darkroom.adjustment_filters AS af WHERE af.adjustment_id = w.id)) AS f
         GROUP BY w.asset_id
    ), chain AS (
        SELECT w.asset_id,
               bool_or(w.rendered_with IS NULL AND NOT w.apple) AS unrecorded,
               jsonb_agg(DISTINCT jsonb_build_array(w.rendered_with -> 'output' -> 'quality',
                                                    w.rendered_with -> 'output' -> 'chroma',
                                                    w.rendered_with -> 'output' -> 'colour_profile'))
                   FILTER (WHERE NOT w.apple AND w.rendered_with IS NOT NULL) AS outputs,
               (array_agg(darkroom.written_renditions(w.rendered_with,
                              (SELECT jsonb_object_agg(rf.name, rf.version) FROM darkroom.adjustment_rendition_files AS rf
                                WHERE rf.adjustment_id = w.id)))
                   FILTER (WHERE w.top AND (w.rendered_with IS NOT NULL OR w.apple)))[1] AS top
          FROM walk AS w
         GROUP BY w.asset_id
    )
    SELECT chain.asset_id,
           jsonb_build_object('unrecorded', chain.unrecorded, 'math', coalesce(math.used, '[]'),
                              'outputs', coalesce(chain.outputs, '[]'), 'top', chain.top),
           coalesce(filter.used, '[]')
      FROM chain
      LEFT JOIN math ON math.asset_id = chain.asset_id
      LEFT JOIN filter ON filter.asset_id = chain.asset_id;
END $$;

-- Brings the kept state of asset_ids to what their current chains say now, and records the
-- difference as count changes (-1 for what an asset had, +1 for what it has). An asset that no
-- longer shows a layer, or no longer exists, is counted out. Row locks on the assets order two
-- transactions refreshing the same asset; each then reads the other's committed state. A
-- caller holding a lock on the whole table passes lock_rows false. A chain that changed but
-- says the same (a re-render, another edit of the same kind) writes nothing. Generic plans:
-- every statement looks assets up by key, and a custom plan costs more to make than to run.
CREATE OR REPLACE FUNCTION darkroom.refresh_library_counts(asset_ids bigint[], lock_rows boolean DEFAULT true)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    fresh_ids bigint[];
    fresh_fingerprints jsonb[];
    fresh_filters jsonb[];
    unchanged boolean;
BEGIN
    IF coalesce(cardinality(refresh_library_counts.asset_ids), 0) = 0 THEN
        RETURN;
    END IF;
    IF lock_rows THEN
        PERFORM 1 FROM darkroom.assets AS s WHERE s.id = ANY (refresh_library_counts.asset_ids) ORDER BY s.id
            FOR NO KEY UPDATE;
    END IF;
    SELECT array_agg(c.asset_id ORDER BY c.asset_id), array_agg(c.fingerprint ORDER BY c.asset_id),
           array_agg(c.filters ORDER BY c.asset_id)
      INTO fresh_ids, fresh_fingerprints, fresh_filters
      FROM darkroom.chain_states(refresh_library_counts.asset_ids) AS c;
    SELECT coalesce(array_agg(k.asset_id ORDER BY k.asset_id), '{}') = coalesce(fresh_ids, '{}')
           AND coalesce(array_agg(p.fingerprint ORDER BY k.asset_id), '{}') = coalesce(fresh_fingerprints, '{}')
           AND coalesce(array_agg(coalesce(
                   (SELECT jsonb_agg(jsonb_build_array(v.name, v.version) ORDER BY jsonb_build_array(v.name, v.version))
                      FROM darkroom.asset_filter_versions AS v WHERE v.asset_id = k.asset_id), '[]') ORDER BY k.asset_id),
                   '{}') = coalesce(fresh_filters, '{}')
      INTO unchanged
      FROM darkroom.asset_render_states AS k
      JOIN darkroom.render_fingerprints AS p ON p.id = k.fingerprint_id
     WHERE k.asset_id = ANY (refresh_library_counts.asset_ids);
    IF unchanged THEN
        RETURN;
    END IF;
    INSERT INTO darkroom.render_fingerprints (fingerprint)
    SELECT DISTINCT f.fingerprint FROM unnest(fresh_fingerprints) AS f(fingerprint)
    ON CONFLICT ON CONSTRAINT render_fingerprints_unique DO NOTHING;

    WITH fresh AS (
        SELECT n.asset_id, p.id AS fingerprint_id
          FROM unnest(fresh_ids, fresh_fingerprints) AS n(asset_id, fingerprint)
          JOIN darkroom.render_fingerprints AS p ON p.fingerprint = n.fingerprint
    ), kept AS (
        SELECT k.asset_id, k.fingerprint_id FROM darkroom.asset_render_states AS k
         WHERE k.asset_id = ANY (refresh_library_counts.asset_ids)
    ), gone AS (
        DELETE FROM darkroom.asset_render_states AS k
         WHERE k.asset_id = ANY (refresh_library_counts.asset_ids)
           AND NOT EXISTS (SELECT 1 FROM fresh WHERE fresh.asset_id = k.asset_id)
    ), stored AS (
        INSERT INTO darkroom.asset_render_states AS k (asset_id, fingerprint_id)
        SELECT fresh.asset_id, fresh.fingerprint_id FROM fresh
        ON CONFLICT (asset_id) DO UPDATE SET fingerprint_id = EXCLUDED.fingerprint_id
         WHERE k.fingerprint_id <> EXCLUDED.fingerprint_id
    )
    INSERT INTO darkroom.library_counts (fingerprint_id, assets)
    SELECT d.fingerprint_id, sum(d.assets)
      FROM (SELECT fresh.fingerprint_id, 1 AS assets FROM fresh
            UNION ALL
            SELECT kept.fingerprint_id, -1 FROM kept) AS d
     GROUP BY d.fingerprint_id
    HAVING sum(d.assets) <> 0;

    WITH fresh AS (
        SELECT n.asset_id, v.value ->> 0 AS name, v.value ->> 1 AS version
          FROM unnest(fresh_ids, fresh_filters) AS n(asset_id, filters)
         CROSS JOIN LATERAL jsonb_array_elements(n.filters) AS v
    ), kept AS (
        SELECT k.asset_id, k.name, k.version FROM darkroom.asset_filter_versions AS k
         WHERE k.asset_id = ANY (refresh_library_counts.asset_ids)
    ), gone AS (
        DELETE FROM darkroom.asset_filter_versions AS k
         WHERE k.asset_id = ANY (refresh_library_counts.asset_ids)
           AND NOT EXISTS (SELECT 1 FROM fresh
                            WHERE (fresh.asset_id, fresh.name, fresh.version) = (k.asset_id, k.name, k.version))
    ), stored AS (
        INSERT INTO darkroom.asset_filter_versions (asset_id, name, version)
        SELECT fresh.asset_id, fresh.name, fresh.version FROM fresh
        ON CONFLICT DO NOTHING
    )
    INSERT INTO darkroom.library_counts (filter_name, filter_version, assets)
    SELECT d.name, d.version, sum(d.assets)
      FROM (SELECT fresh.name, fresh.version, 1 AS assets FROM fresh
            UNION ALL
            SELECT kept.name, kept.version, -1 FROM kept) AS d
     GROUP BY d.name, d.version
    HAVING sum(d.assets) <> 0;

    -- Every 512th refresh folds, so the counts stay a few rows per key between heartbeats too
    -- (a library imported with no worker running).
    IF nextval('darkroom.library_count_changes') % 512 = 0 THEN
        PERFORM darkroom.compact_library_counts();
    END IF;
END $$;

-- Folds the changes of each key into one row; keys that sum to zero go, and a key already in
-- one row is left alone. Called by every worker's heartbeat and now and then by a refresh; one
-- runs at a time (the others return).
CREATE OR REPLACE FUNCTION darkroom.compact_library_counts() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('darkroom.compact_library_counts')) THEN
        RETURN;
    END IF;
    WITH crowded AS (
        SELECT c.fingerprint_id, c.filter_name, c.filter_version
          FROM darkroom.library_counts AS c
         GROUP BY c.fingerprint_id, c.filter_name, c.filter_version
        HAVING count(*) > 1 OR sum(c.assets) = 0
    ), folded AS (
        DELETE FROM darkroom.library_counts AS c USING crowded AS k
         WHERE c.fingerprint_id IS NOT DISTINCT FROM k.fingerprint_id AND c.filter_name IS NOT DISTINCT FROM k.filter_name
           AND c.filter_version IS NOT DISTINCT FROM k.filter_version
        RETURNING c.fingerprint_id, c.filter_name, c.filter_version, c.assets
    )
    INSERT INTO darkroom.library_counts (fingerprint_id, filter_name, filter_version, assets)
    SELECT f.fingerprint_id, f.filter_name, f.filter_version, sum(f.assets)
      FROM folded AS f
     GROUP BY f.fingerprint_id, f.filter_name, f.filter_version
    HAVING sum(f.assets) <> 0;
END $$;

-- How many assets have each render fingerprint now.
CREATE OR REPLACE VIEW darkroom.render_fingerprint_counts AS
    SELECT p.id AS fingerprint_id, p.fingerprint, c.assets
      FROM (SELECT l.fingerprint_id, sum(l.assets) AS assets FROM darkroom.library_counts AS l
             WHERE l.fingerprint_id IS NOT NULL GROUP BY l.fingerprint_id HAVING sum(l.assets) <> 0) AS c
      JOIN darkroom.render_fingerprints AS p ON p.id = c.fingerprint_id;

-- The triggers: a statement that adds, deletes or re-points assets, or changes the rendition
-- files of a layer, refreshes the assets it touched, once per statement.
CREATE OR REPLACE FUNCTION darkroom.refresh_added_assets() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM darkroom.refresh_library_counts(ARRAY(
        SELECT n.id FROM added_assets AS n WHERE n.current_adjustment_id IS NOT NULL));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION darkroom.refresh_removed_assets() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM darkroom.refresh_library_counts(ARRAY(SELECT o.id FROM removed_assets AS o));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION darkroom.refresh_moved_assets() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM darkroom.refresh_library_counts(ARRAY(
        SELECT n.id FROM new_assets AS n JOIN old_assets AS o ON o.id = n.id
         WHERE n.current_adjustment_id IS DISTINCT FROM o.current_adjustment_id));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION darkroom.refresh_rendition_file_assets() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM darkroom.refresh_library_counts(ARRAY(
        SELECT DISTINCT a.asset_id FROM darkroom.adjustments AS a
          JOIN darkroom.assets AS s ON s.id = a.asset_id AND s.current_adjustment_id = a.id
         WHERE a.id IN (SELECT f.adjustment_id FROM changed_files AS f)));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION darkroom.forget_truncated_assets() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM darkroom.asset_render_states;
    DELETE FROM darkroom.asset_filter_versions;
    DELETE FROM darkroom.library_counts;
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER assets_count_truncated AFTER TRUNCATE ON darkroom.assets
    FOR EACH STATEMENT EXECUTE FUNCTION darkroom.forget_truncated_assets();
CREATE OR REPLACE TRIGGER assets_count_added AFTER INSERT ON darkroom.assets
    REFERENCING NEW TABLE AS added_assets FOR EACH STATEMENT EXECUTE FUNCTION darkroom.refresh_added_assets();
CREATE OR REPLACE TRIGGER assets_count_removed AFTER DELETE ON darkroom.assets
    REFERENCING OLD TABLE AS removed_assets FOR EACH STATEMENT EXECUTE FUNCTION darkroom.refresh_removed_assets();
CREATE OR REPLACE TRIGGER assets_count_moved AFTER UPDATE ON darkroom.assets
    REFERENCING OLD TABLE AS old_assets NEW TABLE AS new_assets
    FOR EACH STATEMENT EXECUTE FUNCTION darkroom.refresh_moved_assets();
-- Only the files of a record an asset shows count: a new record's (written with it, before the
-- asset moves to it) are counted when it moves; a renditions job replaces a top layer's.
CREATE OR REPLACE TRIGGER rendition_files_count_added AFTER INSERT ON darkroom.adjustment_rendition_files
    REFERENCING NEW TABLE AS changed_files FOR EACH STATEMENT EXECUTE FUNCTION darkroom.refresh_rendition_file_assets();
CREATE OR REPLACE TRIGGER rendition_files_count_removed AFTER DELETE ON darkroom.adjustment_rendition_files
    REFERENCING OLD TABLE AS changed_files FOR EACH STATEMENT EXECUTE FUNCTION darkroom.refresh_rendition_file_assets();

-- Every asset's state and count again from the chains, a batch of asset ids at a time: once
-- for a library migrated from before these counts (below), and by hand if ever in doubt.
-- Returns how many assets show a layer.
CREATE OR REPLACE FUNCTION darkroom.rebuild_library_counts(batch_size int DEFAULT 100000) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    low bigint := 0;
    batch bigint[];
BEGIN
    LOCK TABLE darkroom.assets, darkroom.adjustment_rendition_files IN SHARE ROW EXCLUSIVE MODE;
    PERFORM pg_advisory_xact_lock(hashtext('darkroom.compact_library_counts'));
    DELETE FROM darkroom.library_counts;
    DELETE FROM darkroom.asset_render_states;
    DELETE FROM darkroom.asset_filter_versions;
    LOOP
        batch := ARRAY(SELECT s.id FROM darkroom.assets AS s
                        WHERE s.id > low AND s.current_adjustment_id IS NOT NULL ORDER BY s.id LIMIT batch_size);
        EXIT WHEN cardinality(batch) = 0;
        PERFORM darkroom.refresh_library_counts(batch, false);
        low := batch[cardinality(batch)];
    END LOOP;
    PERFORM darkroom.compact_library_counts();  -- this transaction holds its lock, so it folds
    RETURN (SELECT count(*) FROM darkroom.asset_render_states);
END $$;

-- Assets whose kept state differs from what their chain says now, and the keys whose count
-- differs from the kept states: empty when the triggers have kept everything true. The
-- tests' check, and an operator's.
CREATE OR REPLACE FUNCTION darkroom.library_counts_drift()
RETURNS TABLE (what text, key text, kept bigint, actual bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    WITH actual AS (
        SELECT c.* FROM darkroom.chain_states(ARRAY(
            SELECT s.id FROM darkroom.assets AS s WHERE s.current_adjustment_id IS NOT NULL)) AS c
    ), actual_filters AS (
        SELECT a.asset_id, v.value ->> 0 AS name, v.value ->> 1 AS version
          FROM actual AS a CROSS JOIN LATERAL jsonb_array_elements(a.filters) AS v
    )
    SELECT 'asset fingerprint', coalesce(a.asset_id, k.asset_id)::text, k.fingerprint_id, p.id
      FROM actual AS a
      LEFT JOIN darkroom.render_fingerprints AS p ON p.fingerprint = a.fingerprint
      FULL JOIN darkroom.asset_render_states AS k ON k.asset_id = a.asset_id
     WHERE k.fingerprint_id IS DISTINCT FROM p.id
    UNION ALL
    SELECT 'asset filter', coalesce(a.asset_id, k.asset_id) || ' ' || coalesce(a.name, k.name) || ' '
           || coalesce(a.version, k.version), (k.asset_id IS NOT NULL)::int, (a.asset_id IS NOT NULL)::int
      FROM actual_filters AS a
      FULL JOIN darkroom.asset_filter_versions AS k
        ON (k.asset_id, k.name, k.version) = (a.asset_id, a.name, a.version)
     WHERE k.asset_id IS NULL OR a.asset_id IS NULL
    UNION ALL
    SELECT 'fingerprint count', coalesce(c.fingerprint_id, s.fingerprint_id)::text, c.assets, s.assets
      FROM darkroom.render_fingerprint_counts AS c
      FULL JOIN (SELECT k.fingerprint_id, count(*) AS assets FROM darkroom.asset_render_states AS k
                  GROUP BY k.fingerprint_id) AS s ON s.fingerprint_id = c.fingerprint_id
     WHERE c.assets IS DISTINCT FROM s.assets
    UNION ALL
    SELECT 'filter count', coalesce(c.name, s.name) || ' ' || coalesce(c.version, s.version), c.assets, s.assets
      FROM darkroom.filter_version_counts AS c
      FULL JOIN (SELECT k.name, k.version, count(*) AS assets FROM darkroom.asset_filter_versions AS k
                  GROUP BY k.name, k.version) AS s ON (s.name, s.version) = (c.name, c.version)
     WHERE c.assets IS DISTINCT FROM s.assets
$$;

-- A library migrated from before these counts has assets showing layers and no count: it gets
-- them once, here, in the migration's transaction.
SELECT darkroom.rebuild_library_counts()
 WHERE NOT EXISTS (SELECT 1 FROM darkroom.library_counts)
   AND EXISTS (SELECT 1 FROM darkroom.assets AS s WHERE s.current_adjustment_id IS NOT NULL);
