SELECT status, loss, current_adjustment_id, replaced
  FROM darkroom.complete_renditions_job($1::bigint, $2::uuid, $3::bigint, $4::jsonb, $5::jsonb)
