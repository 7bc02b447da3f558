SELECT darkroom.retry_job($1::bigint) AS changed
