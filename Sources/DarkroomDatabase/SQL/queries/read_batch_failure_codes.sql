SELECT code, jobs, last_failed_at FROM darkroom.batch_failure_codes WHERE batch = $1
