SELECT darkroom.cancel_job($1::bigint) AS changed
