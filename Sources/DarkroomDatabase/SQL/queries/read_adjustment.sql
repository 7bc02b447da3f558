-- The view owns the column list (Adjustment.init(row:) reads it by name).
SELECT * FROM darkroom.adjustment_records WHERE id = $1 AND asset_id = $2
