-- Queueing a revert: to the original, or without the top layer.

-- Queues a revert of the asset: to the original, or (last_only) without the top layer of
-- its chain, the rest re-rendered. It runs after the asset's queued jobs of the same or
-- higher priority. Refused when the asset has no edit and none queued. Returns the job id.
CREATE OR REPLACE FUNCTION darkroom.enqueue_revert(
    asset_id bigint, last_only boolean DEFAULT false, priority int DEFAULT 0, batch text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    new_job_id bigint;
BEGIN
    PERFORM darkroom.require_asset(enqueue_revert.asset_id);
    PERFORM darkroom.require_job_options(priority, batch);
    IF last_only IS NULL THEN
        RAISE EXCEPTION 'last_only must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'false reverts to the original; true removes only the last layer';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM darkroom.assets AS a
                    WHERE a.id = enqueue_revert.asset_id AND a.current_adjustment_id IS NOT NULL)
       AND NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j
                        WHERE j.asset_id = enqueue_revert.asset_id AND j.state IN ('queued', 'running')) THEN
        RAISE EXCEPTION 'asset % has no edits to revert: it shows its original', enqueue_revert.asset_id
            USING ERRCODE = 'no_data_found', HINT = 'darkroom history --asset ID shows what happened to it';
    END IF;
    INSERT INTO darkroom.jobs (asset_id, kind, priority, batch)
    VALUES (enqueue_revert.asset_id, CASE WHEN last_only THEN 'revert_last' ELSE 'revert' END,
            enqueue_revert.priority, enqueue_revert.batch)
    RETURNING id INTO new_job_id;
    PERFORM darkroom.record_action('enqueue_revert', jsonb_build_object(
        'asset_id', enqueue_revert.asset_id, 'last_only', last_only, 'priority', priority, 'batch', batch),
        jsonb_build_object('job_id', new_job_id));
    RETURN new_job_id;
END $$;
