-- The raw loop both queue benchmarks measure darkroom against (pgbench script): claim one job
-- with FOR UPDATE SKIP LOCKED (state running), then complete it, as any worker that works
-- between claiming and completing must.
WITH next AS (
    SELECT id FROM public.raw_jobs WHERE state = 'queued' AND run_at <= now()
     ORDER BY priority DESC, run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
UPDATE public.raw_jobs AS j SET state = 'running', attempts = j.attempts + 1, started_at = now()
  FROM next WHERE j.id = next.id RETURNING j.id AS job_id \gset
UPDATE public.raw_jobs SET state = 'succeeded', finished_at = now() WHERE id = :job_id;
