SELECT succeeded, failed, cancelled, jobs_per_second::double precision AS rate FROM darkroom.throughput
