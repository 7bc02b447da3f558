-- The current chain as a filter upgrade replays it: each layer's data with the filter brought
-- to its version (upgrade_filter_data, the one place that rewrites it), and whether it changed.
SELECT a.*, u.data AS upgraded_data, u.data <> a.data AS upgraded
  FROM darkroom.asset_chain($1::bigint) AS layer
  JOIN darkroom.adjustment_records AS a ON a.id = layer.adjustment_id
 CROSS JOIN LATERAL (SELECT darkroom.upgrade_filter_data(a.data, $2::text, $3::text, $4::text) AS data) AS u
 ORDER BY layer.layer_number
