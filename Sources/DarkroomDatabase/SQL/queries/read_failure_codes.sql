SELECT code, jobs, last_failed_at FROM darkroom.failure_codes
