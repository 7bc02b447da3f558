-- What is wrong with a lease of $1 seconds (NULL: nothing); claim_jobs and heartbeat refuse it the same way.
SELECT darkroom.lease_problem($1::double precision) AS problem
