SELECT darkroom.enqueue_edit($1::bigint, $2::text, $3::text, $4::bytea, $5::int, $6::text) AS id
