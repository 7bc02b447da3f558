SELECT (e->>'attempt')::int AS attempt, (e->>'at')::timestamptz AS at, e->>'code' AS code,
       e->>'message' AS message, e->>'worker' AS worker
  FROM darkroom.jobs, jsonb_array_elements(errors) WITH ORDINALITY AS history(e, n)
 WHERE id = $1
 ORDER BY n
