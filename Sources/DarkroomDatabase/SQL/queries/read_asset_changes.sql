SELECT id, job_id, action, adjustment_id, previous_adjustment_id, at
  FROM darkroom.asset_changes WHERE asset_id = $1 ORDER BY id
