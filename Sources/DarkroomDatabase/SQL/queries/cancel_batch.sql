SELECT darkroom.cancel_batch($1) AS n
