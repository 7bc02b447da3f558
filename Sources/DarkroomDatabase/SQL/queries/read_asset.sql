-- The view owns the column list (Asset.init(row:) reads it by name).
SELECT * FROM darkroom.asset_records WHERE id = $1
