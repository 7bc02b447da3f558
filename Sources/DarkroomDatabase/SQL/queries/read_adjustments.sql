SELECT * FROM darkroom.adjustment_records WHERE asset_id = $1 ORDER BY id
