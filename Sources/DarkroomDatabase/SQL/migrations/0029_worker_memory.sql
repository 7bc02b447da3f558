-- Heartbeats carry how much of its memory budget a worker's renders hold and how many jobs
-- wait for theirs, so worker_status shows a worker short of memory (NULL: a worker of an
-- older release, which does not say). A new argument list is a new function: drop the old one
-- here, and definitions/heartbeat.sql creates the new one.
ALTER TABLE darkroom.workers ADD COLUMN IF NOT EXISTS memory_reserved bigint;
ALTER TABLE darkroom.workers ADD COLUMN IF NOT EXISTS memory_waiting int;
DROP FUNCTION IF EXISTS darkroom.heartbeat(text, text, int, double precision, bigint[], uuid[], jsonb, boolean, text);
