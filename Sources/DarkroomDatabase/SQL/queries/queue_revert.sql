SELECT darkroom.enqueue_revert($1::bigint, $2::boolean, $3::int, $4::text) AS id
