-- Recording a layer that arrived with its original (an Apple Photos edit and Apple's own render,
-- stored as it is): the one way an importer adds an adjustment outside the queue.

-- Appends the adjustment as the asset's first layer and makes it current, with an 'import'
-- history entry. Refused (22023) when the asset already shows an adjustment: an import never
-- replaces an edit. rendered_path must stay inside the storage root; the row rules check the rest.
CREATE OR REPLACE FUNCTION darkroom.record_imported_layer(
    asset_id bigint, format_identifier text, format_version text, data bytea, rendered_path text,
    rendered_width int, rendered_height int, rendered_bytes bigint
) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    current bigint;
    recorded bigint;
BEGIN
    PERFORM darkroom.require_stored_path(record_imported_layer.rendered_path, 'rendered_path');
    SELECT a.current_adjustment_id INTO current FROM darkroom.assets AS a
     WHERE a.id = record_imported_layer.asset_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'asset % does not exist', record_imported_layer.asset_id USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF current IS NOT NULL THEN
        RAISE EXCEPTION 'asset % already shows adjustment %; an imported layer only goes on an unedited asset',
            record_imported_layer.asset_id, current USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO darkroom.adjustments AS a (asset_id, job_id, format_identifier, format_version, data,
                                           base_adjustment_id, rendered_path, rendered_width, rendered_height,
                                           rendered_bytes, rerender_of, warnings)
    VALUES (record_imported_layer.asset_id, NULL, record_imported_layer.format_identifier,
            record_imported_layer.format_version, record_imported_layer.data, NULL, record_imported_layer.rendered_path,
            record_imported_layer.rendered_width, record_imported_layer.rendered_height,
            record_imported_layer.rendered_bytes, NULL, '[]')
    RETURNING a.id INTO recorded;
    UPDATE darkroom.assets AS a SET current_adjustment_id = recorded WHERE a.id = record_imported_layer.asset_id;
    INSERT INTO darkroom.asset_history (asset_id, job_id, action, adjustment_id, previous_adjustment_id)
    VALUES (record_imported_layer.asset_id, NULL, 'import', recorded, NULL);
    RETURN recorded;
END $$;
