-- The layers the asset shows, bottom first, through the one walk there is (asset_chain).
SELECT a.*
  FROM darkroom.asset_chain($1::bigint) AS layer
  JOIN darkroom.adjustment_records AS a ON a.id = layer.adjustment_id
 ORDER BY layer.layer_number
