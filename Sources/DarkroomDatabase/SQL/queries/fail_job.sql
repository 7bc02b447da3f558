SELECT status, loss, new_state
  FROM darkroom.fail_job($1::bigint, $2::uuid, $3::boolean, $4::double precision, $5::text, $6::text)
