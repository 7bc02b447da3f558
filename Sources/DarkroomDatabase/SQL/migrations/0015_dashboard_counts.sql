-- What the dashboard and `darkroom status` read with a million jobs queued, without counting
-- them: jobs per batch and state kept as they change, and the indexes the remaining reads use.

-- Delta rows: every statement that adds, removes or moves jobs between states appends one row
-- per (batch, state) it changed (definitions/job_counts.sql). No row is ever updated, so
-- concurrent workers never wait on each other here; darkroom.compact_job_counts() folds the
-- deltas into one row per key. The counts are sum(jobs) per key.
CREATE TABLE IF NOT EXISTS darkroom.job_counts (
    batch            text,           -- NULL: jobs outside any batch
    state            text NOT NULL,
    jobs             bigint NOT NULL,
    -- When the first of these jobs was queued (min over the deltas that added jobs).
    first_created_at timestamptz
);
CREATE INDEX IF NOT EXISTS job_counts_by_key ON darkroom.job_counts (batch, state);

INSERT INTO darkroom.job_counts (batch, state, jobs, first_created_at)
SELECT j.batch, j.state, count(*), min(j.created_at) FROM darkroom.jobs AS j GROUP BY j.batch, j.state;

-- Finishes in a time range with their state: the last hour's throughput reads only the index.
-- (It replaces jobs_finished, which had the same key without the state.)
CREATE INDEX IF NOT EXISTS jobs_finished_with_state ON darkroom.jobs (finished_at) INCLUDE (state)
    WHERE state IN ('succeeded', 'failed', 'cancelled');
DROP INDEX IF EXISTS darkroom.jobs_finished;
-- The oldest queued job (and queue_summary's oldest_run_at) without scanning the queue.
CREATE INDEX IF NOT EXISTS jobs_queued_by_run_at ON darkroom.jobs (run_at, id) WHERE state = 'queued';
-- A batch's rate over the last minutes and its last finish: a range of one batch's finishes.
CREATE INDEX IF NOT EXISTS jobs_finished_by_batch ON darkroom.jobs (batch, finished_at) INCLUDE (state)
    WHERE batch IS NOT NULL AND state IN ('succeeded', 'failed', 'cancelled');
-- Failures filtered by the code of their last attempt, newest first.
CREATE INDEX IF NOT EXISTS jobs_failed_by_code ON darkroom.jobs ((errors -> -1 ->> 'code'), finished_at DESC, id DESC)
    WHERE state = 'failed';
-- Failures of one batch, newest first.
CREATE INDEX IF NOT EXISTS jobs_failed_by_batch ON darkroom.jobs (batch, finished_at DESC, id DESC)
    WHERE state = 'failed' AND batch IS NOT NULL;
