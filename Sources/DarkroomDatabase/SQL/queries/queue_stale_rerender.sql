SELECT darkroom.enqueue_stale_rerender($1::jsonb, $2::int, $3::text) AS queued
