SELECT asset_id, job_id, action, previous_adjustment_id, adjustment_id, at
  FROM darkroom.batch_changes
 WHERE batch = $1
 ORDER BY finished_at DESC, job_id DESC
 LIMIT $2
