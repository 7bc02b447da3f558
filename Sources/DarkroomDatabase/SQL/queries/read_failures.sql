SELECT f.job_id, f.asset_id, f.batch, f.attempts, f.crashes, f.last_error, f.finished_at, f.code,
       (e.entry->>'attempt')::int AS attempt, (e.entry->>'at')::timestamptz AS at,
       e.entry->>'code' AS attempt_code, e.entry->>'message' AS message, e.entry->>'worker' AS worker
  FROM (SELECT * FROM darkroom.failures
         WHERE ($1::text IS NULL OR code = $1) AND ($2::text IS NULL OR batch = $2)
         ORDER BY finished_at DESC, job_id DESC LIMIT $3) AS f
  LEFT JOIN LATERAL jsonb_array_elements(f.errors) WITH ORDINALITY AS e(entry, n) ON true
 ORDER BY f.finished_at DESC, f.job_id DESC, e.n
