SELECT adjustment_id FROM darkroom.completed_under_lease($1::bigint, $2::uuid)
