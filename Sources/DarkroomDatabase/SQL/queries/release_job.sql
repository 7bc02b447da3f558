SELECT status, loss FROM darkroom.release_job($1::bigint, $2::uuid, $3::text, $4::double precision)
