-- Filters (migration 0024): adding a version, resolving the versions an edit names, recording
-- which versions an adjustment record uses, and the view the CLI and the dashboard list.

-- A version is data other records point at: it is never changed.
CREATE OR REPLACE FUNCTION darkroom.refuse_filter_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'filter % version % is never changed', OLD.name, OLD.version
        USING ERRCODE = 'restrict_violation',
        HINT = 'add the new LUT as a new version: darkroom filter add NAME VERSION FILE';
END $$;

DROP TRIGGER IF EXISTS filters_never_change ON darkroom.filters;
CREATE TRIGGER filters_never_change BEFORE UPDATE ON darkroom.filters
    FOR EACH ROW EXECUTE FUNCTION darkroom.refuse_filter_update();

-- Records a new version whose LUT the caller has stored under its SHA-256. Returns the row's
-- added_at. The operator API: audited, with the owner's rights.
CREATE OR REPLACE FUNCTION darkroom.add_filter(name text, version text, sha256 text, size bigint)
RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    existing darkroom.filters;
    added timestamptz;
BEGIN
    PERFORM darkroom.require_semver(add_filter.version);
    IF add_filter.name IS NULL OR add_filter.name !~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' THEN
        RAISE EXCEPTION 'filter name % is not a name', quote_nullable(add_filter.name)
            USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use 1 to 64 letters, digits, dots, hyphens and underscores, starting with a letter or digit';
    END IF;
    SELECT * INTO existing FROM darkroom.filters AS f
     WHERE f.name = add_filter.name AND f.version_sort = darkroom.semver_sort_key(add_filter.version);
    IF FOUND THEN
        RAISE EXCEPTION 'filter % already has version % (added by % at %)', existing.name, existing.version,
            existing.added_by, existing.added_at USING ERRCODE = 'unique_violation',
            HINT = 'a version is never changed; add the new LUT under a higher version';
    END IF;
    INSERT INTO darkroom.filters (name, version, sha256, size, added_by)
    VALUES (add_filter.name, add_filter.version, add_filter.sha256, add_filter.size,
            coalesce(darkroom.current_actor(), session_user))
    RETURNING added_at INTO added;
    PERFORM darkroom.record_action('add_filter', jsonb_build_object(
        'name', add_filter.name, 'version', add_filter.version, 'sha256', add_filter.sha256, 'size', add_filter.size),
        jsonb_build_object('added_at', added));
    RETURN added;
END $$;

-- The newest version of a filter: the highest release, or the highest pre-release when it has
-- only those (a pre-release is used when named). NULL when the filter has no version.
CREATE OR REPLACE FUNCTION darkroom.newest_filter(name text) RETURNS darkroom.filters
LANGUAGE sql STABLE AS $$
    SELECT f.* FROM darkroom.filters AS f
     WHERE f.name = newest_filter.name
     ORDER BY f.newest_order DESC
     LIMIT 1
$$;

-- io.darkroom.pipeline data as JSON: a document with an "operations" array, or NULL when the
-- bytes are not such JSON (the worker refuses those with the format's own message). What every
-- function that reads or rewrites filter operations starts from.
CREATE OR REPLACE FUNCTION darkroom.pipeline_document(data bytea) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    document jsonb;
BEGIN
    BEGIN
        document := convert_from(pipeline_document.data, 'UTF8')::jsonb;
    EXCEPTION WHEN OTHERS THEN
        RETURN NULL;
    END;
    IF jsonb_typeof(document) IS DISTINCT FROM 'object'
       OR jsonb_typeof(document -> 'operations') IS DISTINCT FROM 'array' THEN
        RETURN NULL;
    END IF;
    RETURN document;
END $$;

-- io.darkroom.pipeline data with every filter operation's version checked and its LUT's hash
-- written beside it ("sha256"); a missing version becomes the newest. Data that is not such
-- JSON is returned as it is: the worker refuses it with the format's own message. Unchanged
-- bytes when there is no filter.
CREATE OR REPLACE FUNCTION darkroom.resolve_filters(data bytea) RETURNS bytea
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    document jsonb;
    operation jsonb;
    resolved jsonb := '[]';
    chosen darkroom.filters;
    filters int := 0;
BEGIN
    document := darkroom.pipeline_document(resolve_filters.data);
    IF document IS NULL THEN
        RETURN resolve_filters.data;
    END IF;
    FOR operation IN SELECT e.value FROM jsonb_array_elements(document -> 'operations') AS e LOOP
        IF jsonb_typeof(operation) = 'object' AND operation ->> 'op' = 'filter'
           AND jsonb_typeof(operation -> 'name') = 'string' THEN
            IF NOT operation ? 'version' THEN
                chosen := darkroom.newest_filter(operation ->> 'name');
                IF chosen.name IS NULL THEN
                    RAISE EXCEPTION 'filter % does not exist', quote_literal(operation ->> 'name')
                        USING ERRCODE = 'invalid_parameter_value',
                        HINT = 'add it first (darkroom filter add NAME VERSION FILE.cube); darkroom filter list shows every filter';
                END IF;
            ELSIF jsonb_typeof(operation -> 'version') = 'string' AND darkroom.is_semver(operation ->> 'version') THEN
                SELECT * INTO chosen FROM darkroom.filters AS f
                 WHERE f.name = operation ->> 'name'
                   AND f.version_sort = darkroom.semver_sort_key(operation ->> 'version');
                IF NOT FOUND THEN
                    RAISE EXCEPTION 'filter % has no version %', quote_literal(operation ->> 'name'),
                        quote_literal(operation ->> 'version') USING ERRCODE = 'invalid_parameter_value',
                        HINT = 'darkroom filter list shows the versions; leave "version" out for the newest';
                END IF;
            ELSE
                resolved := resolved || jsonb_build_array(operation);
                CONTINUE;  -- not a version: the worker refuses it
            END IF;
            operation := operation || jsonb_build_object('version', chosen.version, 'sha256', chosen.sha256);
            filters := filters + 1;
        END IF;
        resolved := resolved || jsonb_build_array(operation);
    END LOOP;
    IF filters = 0 THEN
        RETURN resolve_filters.data;
    END IF;
    RETURN convert_to((document || jsonb_build_object('operations', resolved))::text, 'UTF8');
END $$;

-- The filter versions a record's data names, as resolve_filters wrote them.
CREATE OR REPLACE FUNCTION darkroom.record_adjustment_filters() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    document jsonb;
BEGIN
    IF NEW.format_identifier <> 'io.darkroom.pipeline' THEN
        RETURN NULL;
    END IF;
    document := darkroom.pipeline_document(NEW.data);
    IF document IS NULL THEN
        RETURN NULL;  -- a worker rendered it, so it has no filter
    END IF;
    INSERT INTO darkroom.adjustment_filters (adjustment_id, name, version, sha256)
    SELECT DISTINCT NEW.id, e.value ->> 'name', e.value ->> 'version', e.value ->> 'sha256'
      FROM jsonb_array_elements(document -> 'operations') AS e
     WHERE jsonb_typeof(e.value) = 'object' AND e.value ->> 'op' = 'filter'
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS adjustments_record_filters ON darkroom.adjustments;
CREATE TRIGGER adjustments_record_filters AFTER INSERT ON darkroom.adjustments
    FOR EACH ROW EXECUTE FUNCTION darkroom.record_adjustment_filters();

-- How many assets show each filter version now (a layer of their current chain uses it),
-- from the counts library_counts.sql keeps.
CREATE OR REPLACE VIEW darkroom.filter_version_counts AS
    SELECT l.filter_name AS name, l.filter_version AS version, sum(l.assets) AS assets
      FROM darkroom.library_counts AS l
     WHERE l.filter_name IS NOT NULL
     GROUP BY l.filter_name, l.filter_version
    HAVING sum(l.assets) <> 0;

-- Every filter version, newest first within a name, with how many assets show it now:
-- `darkroom filter list` and the dashboard's filters page.
CREATE OR REPLACE VIEW darkroom.filter_versions AS
    SELECT f.name, f.version, f.sha256, f.size, f.added_by, f.added_at,
           coalesce(c.assets, 0) AS assets,
           f.newest_order = max(f.newest_order) OVER (PARTITION BY f.name) AS newest
      FROM darkroom.filters AS f
      LEFT JOIN darkroom.filter_version_counts AS c ON c.name = f.name AND c.version = f.version
     ORDER BY f.name, f.version_sort DESC;

-- The assets whose current chain has a layer (any layer) using filter `name` below
-- below_version, in semver order (version_sort), with each such version: what a filter upgrade
-- (`darkroom rerender --filter NAME --below-version V`) reaches, found by index in
-- asset_filter_versions (library_counts.sql keeps it). Only the current chain counts: a layer
-- a revert took off is history, not what the asset shows.
CREATE OR REPLACE FUNCTION darkroom.filter_rerender_scope(name text, below_version text)
RETURNS TABLE (asset_id bigint, version text)
LANGUAGE sql STABLE AS $$
    SELECT v.asset_id, v.version
      FROM darkroom.filters AS f
      JOIN darkroom.asset_filter_versions AS v ON v.name = f.name AND v.version = f.version
     WHERE f.name = filter_rerender_scope.name
       AND f.version_sort < darkroom.semver_sort_key(filter_rerender_scope.below_version)
$$;

-- A filter upgrade's dry run: for each version of `name` below below_version that some asset
-- shows now, how many assets filter_rerender_scope reaches (an asset showing two old versions
-- counts under each), from the kept counts. Queues nothing. The operator API, with the owner's
-- rights.
CREATE OR REPLACE FUNCTION darkroom.filter_rerender_counts(name text, below_version text)
RETURNS TABLE (version text, assets bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM darkroom.require_semver(filter_rerender_counts.below_version);
    IF NOT EXISTS (SELECT 1 FROM darkroom.filters AS f WHERE f.name = filter_rerender_counts.name) THEN
        RAISE EXCEPTION 'filter % does not exist', quote_nullable(filter_rerender_counts.name)
            USING ERRCODE = 'invalid_parameter_value', HINT = 'darkroom filter list shows every filter';
    END IF;
    RETURN QUERY
    SELECT c.version, c.assets::bigint
      FROM darkroom.filter_version_counts AS c
      JOIN darkroom.filters AS f ON f.name = c.name AND f.version = c.version
     WHERE c.name = filter_rerender_counts.name
       AND f.version_sort < darkroom.semver_sort_key(filter_rerender_counts.below_version)
     ORDER BY f.version_sort;
END $$;
