SELECT darkroom.worker_stopped($1::text)
