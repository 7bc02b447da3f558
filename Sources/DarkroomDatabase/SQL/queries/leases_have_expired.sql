SELECT darkroom.leases_have_expired() AS expired
