SELECT job_id, new_state, worker, crashes FROM darkroom.rescue_expired_leases()
