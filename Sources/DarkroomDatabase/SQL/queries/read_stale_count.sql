SELECT darkroom.stale_count($1::jsonb) AS n
