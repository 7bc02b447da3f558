-- Queueing the same edit for many assets at once.

-- Queues the same edit for many assets in one INSERT ... SELECT (so one NOTIFY), with the
-- checks of enqueue_edit. Refuses the whole call, naming up to ten of them, if any asset is
-- unknown. Returns (asset_id, job_id) per queued job. The audit row names the first 1000
-- assets and how many there were.
CREATE OR REPLACE FUNCTION darkroom.enqueue_edits(
    asset_ids bigint[], format_identifier text, format_version text, data bytea,
    priority int DEFAULT -10, batch text DEFAULT NULL
) RETURNS TABLE (asset_id bigint, job_id bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    problem text;
    missing bigint[];
    queued bigint;
    resolved bytea;
BEGIN
    IF asset_ids IS NULL OR format_identifier IS NULL OR format_version IS NULL OR data IS NULL OR priority IS NULL THEN
        RAISE EXCEPTION 'asset_ids, format_identifier, format_version, data and priority must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF array_position(asset_ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'asset_ids must not contain NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    problem := coalesce(darkroom.reverse_dns_problem(format_identifier), darkroom.semver_problem(format_version),
                        darkroom.batch_problem(batch));
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'the edits were refused: %', problem USING ERRCODE = 'invalid_parameter_value',
            HINT = 'identifiers are reverse-DNS (io.darkroom.pipeline), versions MAJOR.MINOR[.PATCH]';
    END IF;
    IF octet_length(data) > 1048576 THEN
        RAISE EXCEPTION 'data is % bytes; the limit is 1048576 bytes (1 MiB)', octet_length(data)
            USING ERRCODE = 'program_limit_exceeded';
    END IF;
    IF priority NOT BETWEEN -1000 AND 1000 THEN
        RAISE EXCEPTION 'priority must be between -1000 and 1000, got %', priority USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT array_agg(DISTINCT requested.id ORDER BY requested.id) INTO missing
      FROM unnest(asset_ids) AS requested(id)
     WHERE NOT EXISTS (SELECT 1 FROM darkroom.assets AS a WHERE a.id = requested.id);
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION '% of the assets do not exist: %', cardinality(missing),
            array_to_string(missing[1:10], ', ') || CASE WHEN cardinality(missing) > 10 THEN ', …' ELSE '' END
            USING ERRCODE = 'foreign_key_violation', HINT = 'nothing was queued; existing ids are in darkroom.assets';
    END IF;
    -- As enqueue_edit: filters checked, a missing version the newest now (once for all).
    resolved := CASE WHEN enqueue_edits.format_identifier = 'io.darkroom.pipeline'
                     THEN darkroom.resolve_filters(enqueue_edits.data) ELSE enqueue_edits.data END;
    RETURN QUERY
    INSERT INTO darkroom.jobs AS j (asset_id, kind, format_identifier, format_version, data, priority, batch)
    SELECT requested.id, 'edit', enqueue_edits.format_identifier, enqueue_edits.format_version,
           resolved, enqueue_edits.priority, enqueue_edits.batch
      FROM unnest(asset_ids) WITH ORDINALITY AS requested(id, n)
     ORDER BY requested.n
    RETURNING j.asset_id, j.id;
    GET DIAGNOSTICS queued = ROW_COUNT;
    PERFORM darkroom.record_action('enqueue_edits', jsonb_build_object(
        'asset_count', cardinality(asset_ids), 'asset_ids', to_jsonb(asset_ids[1:1000]),
        'format_identifier', enqueue_edits.format_identifier, 'format_version', enqueue_edits.format_version,
        'priority', enqueue_edits.priority, 'batch', enqueue_edits.batch) || darkroom.audited_data(enqueue_edits.data),
        jsonb_build_object('queued', queued));
END $$;

CREATE OR REPLACE FUNCTION darkroom.enqueue_edits(
    asset_ids bigint[], format_identifier text, format_version text, data jsonb,
    priority int DEFAULT -10, batch text DEFAULT NULL
) RETURNS TABLE (asset_id bigint, job_id bigint)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT * FROM darkroom.enqueue_edits(asset_ids, format_identifier, format_version,
                                         convert_to(data::text, 'UTF8'), priority, batch)
$$;
