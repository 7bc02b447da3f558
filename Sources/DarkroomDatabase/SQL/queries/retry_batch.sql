SELECT darkroom.retry_batch($1, $2) AS n
