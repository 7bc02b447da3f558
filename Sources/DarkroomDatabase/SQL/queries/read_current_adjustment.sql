SELECT * FROM darkroom.adjustment_records
 WHERE id = (SELECT current_adjustment_id FROM darkroom.asset_records WHERE id = $1)
