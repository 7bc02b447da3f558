-- claim_jobs takes the claiming worker's darkroom release, so a job that needs a newer release
-- than a worker's (darkroom.oldest_release_for) waits for one instead of rendering wrongly. A
-- new argument list is a new function: drop the old one here, and definitions/claim_jobs.sql
-- creates the new one. Workers of older releases call it with four arguments, which the new
-- one accepts: their release is then unknown, and jobs that need one are left to others.
DROP FUNCTION IF EXISTS darkroom.claim_jobs(text, int, double precision, jsonb);

-- Heartbeats name the release too, so worker_status shows which workers can take such jobs
-- during a rolling upgrade (NULL: a worker of an older release, which does not say).
ALTER TABLE darkroom.workers ADD COLUMN IF NOT EXISTS release text;
DROP FUNCTION IF EXISTS darkroom.heartbeat(text, text, int, double precision, bigint[], uuid[], jsonb, boolean);
