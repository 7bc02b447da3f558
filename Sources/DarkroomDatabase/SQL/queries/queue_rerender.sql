SELECT darkroom.enqueue_rerender($1::text, $2::text, $3::int, $4::text) AS queued
