-- The catalogue as AssetStore reads it, for every role that reads it: the worker, and the
-- viewer and operator (the dashboard's asset pages), who read views and no table. Each view is
-- its table unchanged, so a WHERE on its key reads the table's index. Each view's columns are
-- what AssetStore reads (Asset.init(row:), Adjustment.init(row:)), so the lists live here only.
CREATE OR REPLACE VIEW darkroom.asset_records AS
SELECT s.id, s.original_path, s.content_sha256, s.byte_size, s.pixel_width, s.pixel_height, s.orientation,
       s.latitude, s.longitude, s.altitude, s.creation_date, s.current_adjustment_id, s.metadata_warnings, s.imported_at,
       s.creation_date_source
  FROM darkroom.assets AS s;

CREATE OR REPLACE VIEW darkroom.adjustment_records AS
SELECT a.id, a.asset_id, a.job_id, a.format_identifier, a.format_version, a.data, a.base_adjustment_id,
       a.rendered_path, a.rendered_width, a.rendered_height, a.rendered_bytes, a.created_at, a.rerender_of, a.warnings,
       -- Whether the render carries an HDR gain map: its provenance record says what the map is.
       coalesce(jsonb_typeof(a.rendered_with -> 'hdr') = 'object', false) AS carries_hdr
  FROM darkroom.adjustments AS a;

-- One asset's chain, bottom first, through the one walk there is (current_chains), with the
-- owner's rights: current_chains reads the tables with its caller's, which a viewer has not.
CREATE OR REPLACE FUNCTION darkroom.asset_chain(asset_id bigint)
RETURNS TABLE (layer_number int, adjustment_id bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT c.layer_number, c.adjustment_id FROM darkroom.current_chains(ARRAY[asset_chain.asset_id]) AS c
$$;
