extension Migration {
    /// What leases, crash loops, a mixed fleet and housekeeping need from the tables.
    static let queueSchema = Migration(version: 4, name: "queue_schema", sql: #"""
        -- Operator-tunable queue settings; read by the SQL functions, validated on write.
        CREATE TABLE IF NOT EXISTS darkroom.settings (
            name        text PRIMARY KEY,
            value       text NOT NULL,
            description text NOT NULL
        );

        CREATE OR REPLACE FUNCTION darkroom.setting_problem(name text, value text) RETURNS text
        LANGUAGE plpgsql IMMUTABLE AS $$
        BEGIN
            CASE name
            WHEN 'crash_limit' THEN
                IF value !~ '^[1-9][0-9]{0,2}$' THEN RETURN 'crash_limit must be a whole number from 1 to 999'; END IF;
            WHEN 'keep_succeeded', 'keep_failed', 'keep_cancelled', 'forget_workers_after' THEN
                BEGIN
                    IF value::interval < interval '0' THEN RETURN format('%s must not be negative', name); END IF;
                EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR interval_field_overflow THEN
                    RETURN format('%s must be an interval such as ''7 days'', got %L', name, value);
                END;
            ELSE
                RETURN format('unknown setting %L; see SELECT * FROM darkroom.settings', name);
            END CASE;
            RETURN NULL;
        END $$;

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

        -- Versions as sortable text: each number zero-padded to 9 digits (the most semver_problem
        -- allows), then 0 for a pre-release and 1 for a release, so 1.2.0-beta < 1.2.0 < 1.10.0.
        -- Pre-release identifiers themselves are not ordered: 1.2.0-alpha and 1.2.0-beta compare equal.
        CREATE OR REPLACE FUNCTION darkroom.semver_sort_key(version text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
            SELECT lpad(split_part(core, '.', 1), 9, '0') || '.' || lpad(split_part(core, '.', 2), 9, '0') || '.'
                   || lpad(coalesce(nullif(split_part(core, '.', 3), ''), '0'), 9, '0')
                   || CASE WHEN split_part(version, '+', 1) LIKE '%-%' THEN '.0' ELSE '.1' END
              FROM (SELECT substring(version FROM '^[0-9]+\.[0-9]+(?:\.[0-9]+)?') AS core) AS parsed
        $$;

        -- As before, plus: numbers have at most 9 digits, so every valid version has a sort key.
        CREATE OR REPLACE FUNCTION darkroom.semver_problem(version text) RETURNS text
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
        DECLARE
            numbers text[] := string_to_array(substring(version FROM '^[^-+]*'), '.');
            number text;
        BEGIN
            IF version IS NULL THEN RETURN 'it is missing'; END IF;
            IF length(version) > 255 THEN
                RETURN format('it is %s characters long; the limit is 255', length(version));
            END IF;
            IF version ~ '^[vV]' THEN RETURN 'it starts with "v"; write the bare number'; END IF;
            IF cardinality(numbers) NOT IN (2, 3) THEN
                RETURN format('it has %s dot-separated numbers; use MAJOR.MINOR or MAJOR.MINOR.PATCH', coalesce(cardinality(numbers), 0));
            END IF;
            FOREACH number IN ARRAY numbers LOOP
                IF number !~ '^[0-9]+$' THEN RETURN format('%L is not a number', number); END IF;
                IF number ~ '^0[0-9]' THEN RETURN format('%L has a leading zero', number); END IF;
                IF length(number) > 9 THEN RETURN format('%L has more than 9 digits', number); END IF;
            END LOOP;
            IF version !~ '^[0-9]+\.[0-9]+(\.[0-9]+)?(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$' THEN
                RETURN 'its -pre-release or +build suffix is malformed: use dot-separated identifiers of [0-9A-Za-z-], numeric ones without leading zeros';
            END IF;
            RETURN NULL;
        END $$;

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
        """#)
}
