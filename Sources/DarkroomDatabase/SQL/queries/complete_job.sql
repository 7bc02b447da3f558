SELECT status, loss, current_adjustment_id
  FROM darkroom.complete_job($1::bigint, $2::uuid, $3::boolean, $4::bigint, $5::text, $6::text, $7::bigint,
                             $8::text[], $9::text[], $10::bytea[], $11::text[], $12::int[], $13::int[],
                             $14::bigint[], $15::bigint[], $16::jsonb, $17::jsonb)
