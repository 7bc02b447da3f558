-- Settings, leases, crash counts, workers and job runs. setting_problem and semver_sort_key
-- (definitions/validators.sql, definitions/semver.sql) are applied before any migration.

-- Operator-tunable queue settings; read by the SQL functions, validated on write.
CREATE TABLE IF NOT EXISTS darkroom.settings (
    name        text PRIMARY KEY,
    value       text NOT NULL,
    description text NOT NULL
);

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'settings_value_is_valid') THEN
        ALTER TABLE darkroom.settings ADD CONSTRAINT settings_value_is_valid
            CHECK (darkroom.setting_problem(name, value) IS NULL);
    END IF;
END $$;

INSERT INTO darkroom.settings (name, value, description) VALUES
    ('crash_limit', '3', 'a job whose worker died (its lease expired) this many attempts in a row is parked as failed'),
    ('keep_succeeded', '14 days', 'prune_jobs deletes succeeded jobs finished longer ago than this'),
    ('keep_failed', '90 days', 'prune_jobs deletes failed jobs finished longer ago than this'),
    ('keep_cancelled', '14 days', 'prune_jobs deletes cancelled jobs finished longer ago than this'),
    ('forget_workers_after', '1 day', 'prune_jobs forgets workers not seen for this long')
ON CONFLICT (name) DO NOTHING;

ALTER TABLE darkroom.jobs
    -- Consecutive attempts that ended with the lease expiring (the worker died); reset by
    -- any attempt that ends normally.
    ADD COLUMN IF NOT EXISTS crashes int NOT NULL DEFAULT 0,
    -- The lease under which the job succeeded, so a worker whose connection broke while
    -- completing can tell whether its completion committed.
    ADD COLUMN IF NOT EXISTS completed_lease uuid,
    ADD COLUMN IF NOT EXISTS format_version_sort text COLLATE "C"
        GENERATED ALWAYS AS (darkroom.semver_sort_key(format_version)) STORED;

-- Which workers exist, what they can render, and when they were last heard from.
CREATE TABLE IF NOT EXISTS darkroom.workers (
    name          text PRIMARY KEY,
    host          text NOT NULL,
    pid           int NOT NULL,
    started_at    timestamptz NOT NULL DEFAULT now(),
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    lease_seconds double precision NOT NULL,
    formats       jsonb NOT NULL DEFAULT '[]',   -- [{identifier, min, max}]
    running       int NOT NULL DEFAULT 0,
    stopping      boolean NOT NULL DEFAULT false
);

-- Each run of a Jobs/ file, so "since the last run" has an answer.
CREATE TABLE IF NOT EXISTS darkroom.job_runs (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL,
    params      jsonb NOT NULL DEFAULT '{}',
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    status      text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
    result      text
);
CREATE INDEX IF NOT EXISTS job_runs_by_name ON darkroom.job_runs (name, started_at DESC);

-- Pruning finished jobs must not be blocked by the history that mentions them: the
-- adjustment keeps its job id as a plain number (unique, so still one result per job).
ALTER TABLE darkroom.adjustments DROP CONSTRAINT IF EXISTS adjustments_job_id_fkey;

-- The lease sweep reads running jobs through an index on a column the heartbeat never
-- writes, so a heartbeat (lease_expires_at only) is a HOT update: no index churn.
DROP INDEX IF EXISTS darkroom.jobs_expiring_leases;
CREATE INDEX IF NOT EXISTS jobs_running ON darkroom.jobs (id) WHERE state = 'running';
CREATE INDEX IF NOT EXISTS jobs_finished ON darkroom.jobs (finished_at)
    WHERE state IN ('succeeded', 'failed', 'cancelled');
CREATE INDEX IF NOT EXISTS jobs_by_batch ON darkroom.jobs (batch, state) WHERE batch IS NOT NULL;

-- A queue table churns: vacuum after 2 % of it changed rather than the default 20 %, leave
-- room on each page for HOT heartbeats, and do not throttle the vacuum of this table.
ALTER TABLE darkroom.jobs SET (
    fillfactor = 85,
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.05,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0
);
ALTER TABLE darkroom.workers SET (fillfactor = 50, autovacuum_vacuum_threshold = 100);
