-- Filter upgrades (migration 0027): queueing the re-renders that bring every asset showing an
-- older version of a filter to its newest, and the one rewrite of the filter operations those
-- re-renders replay.

-- io.darkroom.pipeline data with every "filter" operation named `name` whose version sorts
-- below `version` rewritten to `version` and `sha256` (its other fields kept); the same bytes
-- when there is none, or the data is not such JSON. The one place a filter upgrade changes an
-- operation: the worker reads the chain of an upgrade job through it (AssetStore), so what is
-- replayed, recorded and counted by adjustment_filters is this. It reads no table.
CREATE OR REPLACE FUNCTION darkroom.upgrade_filter_data(data bytea, name text, version text, sha256 text)
RETURNS bytea
LANGUAGE plpgsql IMMUTABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    document jsonb;
    operation jsonb;
    rewritten jsonb := '[]';
    target text := darkroom.semver_sort_key(upgrade_filter_data.version);
    changed int := 0;
BEGIN
    document := darkroom.pipeline_document(upgrade_filter_data.data);
    IF document IS NULL THEN
        RETURN upgrade_filter_data.data;
    END IF;
    FOR operation IN SELECT e.value FROM jsonb_array_elements(document -> 'operations') AS e LOOP
        IF jsonb_typeof(operation) = 'object' AND operation ->> 'op' = 'filter'
           AND operation ->> 'name' = upgrade_filter_data.name
           AND jsonb_typeof(operation -> 'version') = 'string' AND darkroom.is_semver(operation ->> 'version')
           AND darkroom.semver_sort_key(operation ->> 'version') COLLATE "C" < target COLLATE "C" THEN
            operation := operation || jsonb_build_object('version', upgrade_filter_data.version,
                                                         'sha256', upgrade_filter_data.sha256);
            changed := changed + 1;
        END IF;
        rewritten := rewritten || jsonb_build_array(operation);
    END LOOP;
    IF changed = 0 THEN
        RETURN upgrade_filter_data.data;
    END IF;
    RETURN convert_to((document || jsonb_build_object('operations', rewritten))::text, 'UTF8');
END $$;

-- A job's filter upgrade (migration 0027): all three columns or none, and only on a re-render.
-- Checked only for rows that set one (the WHEN clause), so other jobs pay nothing; after the
-- write, as the other rules of jobs are (row_rule_triggers.sql says why).
CREATE OR REPLACE FUNCTION darkroom.check_job_filter_upgrade() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT (NEW.kind = 'rerender' AND NEW.filter_name IS NOT NULL AND darkroom.is_semver(NEW.filter_version)
            AND coalesce(NEW.filter_sha256 ~ '^[0-9a-f]{64}$', false)) THEN
        PERFORM darkroom.refuse_row('jobs', 'jobs_filter_upgrade_shape',
            'a filter upgrade is a re-render with a filter name, a semantic version and a lowercase hex SHA-256');
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER jobs_filter_upgrade_shape
    AFTER INSERT OR UPDATE OF kind, filter_name, filter_version, filter_sha256 ON darkroom.jobs
    FOR EACH ROW WHEN (NEW.filter_name IS NOT NULL OR NEW.filter_version IS NOT NULL OR NEW.filter_sha256 IS NOT NULL)
    EXECUTE FUNCTION darkroom.check_job_filter_upgrade();

-- The roll-out: queues one re-render per asset that filter_rerender_scope says shows `name`
-- below below_version in any layer of its current chain, bringing each such operation to the
-- filter's newest version (chosen here, stored in the job with its LUT hash, so every job of a
-- roll-out renders the version its canary showed even if a newer one is added meanwhile).
-- Skips assets with an upgrade of this filter to this version already queued or running, so
-- running it twice queues nothing more. `sample` (NULL: all) queues a canary of that many:
-- the first in the order of md5(asset id, name, version), a spread over the library that is
-- the same on every run; running it again without `sample` queues the rest. `max_jobs` (NULL:
-- no limit) caps this call, so a roll-out can be queued in short transactions, each call
-- taking the next ones in the same order. `batch` defaults to
-- filter-NAME-VERSION (and -sample for a canary). Returns what was queued, the batch and the
-- version. The operator API: audited, with the owner's rights.
CREATE OR REPLACE FUNCTION darkroom.enqueue_filter_rerender(
    name text, below_version text, sample int DEFAULT NULL, max_jobs int DEFAULT NULL,
    priority int DEFAULT -20, batch text DEFAULT NULL
) RETURNS TABLE (queued bigint, batch_name text, to_version text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    target darkroom.filters;
    chosen_batch text;
    queued_now bigint;
BEGIN
    PERFORM darkroom.require_semver(enqueue_filter_rerender.below_version);
    target := darkroom.newest_filter(enqueue_filter_rerender.name);
    IF target.name IS NULL THEN
        RAISE EXCEPTION 'filter % does not exist', quote_nullable(enqueue_filter_rerender.name)
            USING ERRCODE = 'invalid_parameter_value', HINT = 'darkroom filter list shows every filter';
    END IF;
    IF target.version_sort COLLATE "C" < darkroom.semver_sort_key(enqueue_filter_rerender.below_version) COLLATE "C" THEN
        RAISE EXCEPTION 'filter % has no version at or above %: its newest is %', quote_literal(target.name),
            enqueue_filter_rerender.below_version, target.version USING ERRCODE = 'invalid_parameter_value',
            HINT = 'add the new LUT first (darkroom filter add NAME VERSION FILE.cube), or name a lower --below-version';
    END IF;
    IF sample IS NOT NULL AND sample < 1 OR max_jobs IS NOT NULL AND max_jobs < 1 THEN
        RAISE EXCEPTION 'sample and max_jobs must be 1 or more when given (got % and %)',
            coalesce(sample::text, 'NULL'), coalesce(max_jobs::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    chosen_batch := coalesce(enqueue_filter_rerender.batch,
        left('filter-' || target.name || '-' || target.version || CASE WHEN sample IS NULL THEN '' ELSE '-sample' END,
             200));
    PERFORM darkroom.require_job_options(priority, chosen_batch);
    INSERT INTO darkroom.jobs (asset_id, kind, priority, batch, filter_name, filter_version, filter_sha256)
    SELECT candidate.asset_id, 'rerender', enqueue_filter_rerender.priority, chosen_batch,
           target.name, target.version, target.sha256
      FROM (SELECT DISTINCT scope.asset_id
              FROM darkroom.filter_rerender_scope(target.name, enqueue_filter_rerender.below_version) AS scope
             WHERE NOT EXISTS (
                   SELECT 1 FROM darkroom.jobs AS j
                    WHERE j.asset_id = scope.asset_id AND j.state IN ('queued', 'running') AND j.kind = 'rerender'
                      AND j.filter_name = target.name AND j.filter_version = target.version)) AS candidate
     ORDER BY CASE WHEN sample IS NULL THEN NULL ELSE md5(candidate.asset_id || ':' || target.name || ':' || target.version) END,
              candidate.asset_id
     LIMIT least(sample, max_jobs);
    GET DIAGNOSTICS queued_now = ROW_COUNT;
    PERFORM darkroom.record_action('enqueue_filter_rerender', jsonb_build_object(
        'name', enqueue_filter_rerender.name, 'below_version', below_version, 'sample', sample,
        'max_jobs', max_jobs, 'priority', priority, 'batch', enqueue_filter_rerender.batch),
        jsonb_build_object('queued', queued_now, 'batch', chosen_batch, 'version', target.version));
    RETURN QUERY SELECT queued_now, chosen_batch, target.version;
END $$;
