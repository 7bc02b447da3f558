SELECT darkroom.add_filter($1::text, $2::text, $3::text, $4::bigint) AS added_at
