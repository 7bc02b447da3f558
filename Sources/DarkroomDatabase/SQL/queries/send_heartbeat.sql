-- One worker process's heartbeat (darkroom.heartbeat): its identity, lease, the jobs it holds
-- with their tokens, the formats it renders, whether it is stopping, its release and its
-- memory budget's use.
SELECT job_id, loss
  FROM darkroom.heartbeat($1::text, $2::text, $3::int, $4::double precision, $5::bigint[], $6::uuid[],
                          $7::jsonb, $8::boolean, $9::text, $10::bigint, $11::int)
