extension Migration {
    /// Revert, revert-last and re-render jobs beside edits; edits of one asset applied in the
    /// order they were queued; and an append-only record of how each asset's look changed.
    static let editingModel = Migration(version: 8, name: "editing_model", sql: #"""
        -- edit:        format_identifier/format_version/data are the adjustment to apply.
        -- revert:      back to the original (PhotoKit's revert); no format columns.
        -- revert_last: drop the top layer of the current chain, re-render the rest; no format columns.
        -- rerender:    replay the current chain from the original with the worker's code, writing
        --              every layer at its editor's current version. format_identifier (optional)
        --              names the upgraded editor; format_version (optional) is the version the
        --              re-render must reach, so only workers writing at least that version claim it.
        ALTER TABLE darkroom.jobs
            ALTER COLUMN format_identifier DROP NOT NULL,
            ALTER COLUMN format_version DROP NOT NULL,
            ALTER COLUMN data DROP NOT NULL,
            -- What a job that succeeded without a new adjustment did (a revert, a no-op re-render).
            ADD COLUMN IF NOT EXISTS outcome text;

        ALTER TABLE darkroom.jobs
            DROP CONSTRAINT IF EXISTS jobs_format_identifier_is_reverse_dns,
            DROP CONSTRAINT IF EXISTS jobs_format_version_is_semver,
            DROP CONSTRAINT IF EXISTS jobs_adjustment_iff_succeeded,
            DROP CONSTRAINT IF EXISTS jobs_kind_is_known,
            DROP CONSTRAINT IF EXISTS jobs_kind_shape,
            DROP CONSTRAINT IF EXISTS jobs_adjustment_only_when_succeeded,
            DROP CONSTRAINT IF EXISTS jobs_edit_succeeds_with_adjustment;
        ALTER TABLE darkroom.jobs
            ADD CONSTRAINT jobs_format_identifier_is_reverse_dns
                CHECK (format_identifier IS NULL OR darkroom.reverse_dns_problem(format_identifier) IS NULL),
            ADD CONSTRAINT jobs_format_version_is_semver
                CHECK (format_version IS NULL OR darkroom.semver_problem(format_version) IS NULL),
            ADD CONSTRAINT jobs_kind_is_known CHECK (kind IN ('edit', 'revert', 'revert_last', 'rerender')),
            ADD CONSTRAINT jobs_kind_shape CHECK (CASE kind
                WHEN 'edit' THEN format_identifier IS NOT NULL AND format_version IS NOT NULL AND data IS NOT NULL
                WHEN 'rerender' THEN data IS NULL AND (format_version IS NULL OR format_identifier IS NOT NULL)
                ELSE format_identifier IS NULL AND format_version IS NULL AND data IS NULL END),
            -- adjustment_id is the top layer a job recorded: only once it succeeded, always for an edit.
            ADD CONSTRAINT jobs_adjustment_only_when_succeeded CHECK (adjustment_id IS NULL OR state = 'succeeded'),
            ADD CONSTRAINT jobs_edit_succeeds_with_adjustment
                CHECK (kind <> 'edit' OR state <> 'succeeded' OR adjustment_id IS NOT NULL);

        -- A replayed layer names the layer it re-renders (same edit, current code and version).
        ALTER TABLE darkroom.adjustments ADD COLUMN IF NOT EXISTS rerender_of bigint;

        -- How each asset's current look changed, oldest first: never updated, removed only with
        -- the asset. adjustment_id NULL means the original.
        CREATE TABLE IF NOT EXISTS darkroom.asset_history (
            id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            asset_id                bigint NOT NULL REFERENCES darkroom.assets ON DELETE CASCADE,
            job_id                  bigint,   -- a plain number: jobs are pruned, history is not
            action                  text NOT NULL CHECK (action IN ('edit', 'revert', 'revert_last', 'rerender')),
            adjustment_id           bigint,
            previous_adjustment_id  bigint,
            at                      timestamptz NOT NULL DEFAULT now(),
            CONSTRAINT asset_history_adjustment_same_asset FOREIGN KEY (adjustment_id, asset_id)
                REFERENCES darkroom.adjustments (id, asset_id) DEFERRABLE INITIALLY DEFERRED,
            CONSTRAINT asset_history_previous_same_asset FOREIGN KEY (previous_adjustment_id, asset_id)
                REFERENCES darkroom.adjustments (id, asset_id) DEFERRABLE INITIALLY DEFERRED
        );
        CREATE INDEX IF NOT EXISTS asset_history_by_asset ON darkroom.asset_history (asset_id, id);

        CREATE OR REPLACE FUNCTION darkroom.refuse_history_changes() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM darkroom.assets WHERE id = OLD.asset_id) THEN
                RETURN OLD;
            END IF;
            RAISE EXCEPTION 'darkroom.asset_history is append-only: entry % cannot be %',
                OLD.id, CASE TG_OP WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END
                USING ERRCODE = 'restrict_violation', HINT = 'deleting the asset removes its whole history';
        END $$;

        CREATE OR REPLACE TRIGGER asset_history_append_only
            BEFORE UPDATE OR DELETE ON darkroom.asset_history
            FOR EACH ROW EXECUTE FUNCTION darkroom.refuse_history_changes();

        -- Edits recorded before this migration, so every asset's history starts complete.
        INSERT INTO darkroom.asset_history (asset_id, job_id, action, adjustment_id, previous_adjustment_id, at)
        SELECT a.asset_id, a.job_id, 'edit', a.id,
               lag(a.id) OVER (PARTITION BY a.asset_id ORDER BY a.id), a.created_at
          FROM darkroom.adjustments AS a
         WHERE NOT EXISTS (SELECT 1 FROM darkroom.asset_history)
         ORDER BY a.id;

        -- Open jobs by asset, for the per-asset order below.
        CREATE INDEX IF NOT EXISTS jobs_open_by_asset ON darkroom.jobs (asset_id, id) WHERE state IN ('queued', 'running');

        -- As before, plus: the jobs of one asset run one at a time, highest priority first and in
        -- queue order within a priority (so edits and reverts apply in the order they were queued,
        -- and an interactive edit is not stuck behind the asset's low-priority re-render, which then
        -- replays the chain with the edit in it); and
        -- each kind has its own format rule: an edit needs its format and version readable; a
        -- re-render of a named format needs a worker writing at least the target version; reverts
        -- and whole-chain re-renders go to any worker.
        CREATE OR REPLACE FUNCTION darkroom.claim_jobs(
            worker_name text, max_jobs int, lease_seconds double precision, formats jsonb DEFAULT NULL
        ) RETURNS SETOF darkroom.jobs
        LANGUAGE plpgsql SECURITY INVOKER AS $$
        DECLARE
            problem text := darkroom.formats_problem(formats);
            identifiers text[];
            lows text[];
            highs text[];
        BEGIN
            IF worker_name IS NULL OR worker_name = '' OR length(worker_name) > 200 THEN
                RAISE EXCEPTION 'worker_name must be 1 to 200 characters' USING ERRCODE = 'invalid_parameter_value';
            END IF;
            IF max_jobs IS NULL OR max_jobs NOT BETWEEN 1 AND 1000 THEN
                RAISE EXCEPTION 'max_jobs must be between 1 and 1000, got %', max_jobs USING ERRCODE = 'invalid_parameter_value';
            END IF;
            IF lease_seconds IS NULL OR NOT lease_seconds BETWEEN 1 AND 86400 THEN
                RAISE EXCEPTION 'lease_seconds must be between 1 and 86400, got %', lease_seconds USING ERRCODE = 'invalid_parameter_value';
            END IF;
            IF problem IS NOT NULL THEN
                RAISE EXCEPTION '%', problem USING ERRCODE = 'invalid_parameter_value';
            END IF;
            PERFORM darkroom.rescue_expired_leases();
            IF formats IS NOT NULL THEN
                SELECT coalesce(array_agg(f->>'identifier'), '{}'), coalesce(array_agg(darkroom.semver_sort_key(f->>'min')), '{}'),
                       coalesce(array_agg(darkroom.semver_sort_key(f->>'max')), '{}')
                  INTO identifiers, lows, highs
                  FROM jsonb_array_elements(formats) AS f;
            END IF;
            RETURN QUERY
            WITH next AS MATERIALIZED (
                SELECT j.id FROM darkroom.jobs AS j
                 WHERE j.state = 'queued' AND j.run_at <= now()
                   AND (identifiers IS NULL OR CASE j.kind
                        WHEN 'edit' THEN EXISTS (
                            SELECT 1 FROM unnest(identifiers, lows, highs) AS f(identifier, low, high)
                             WHERE f.identifier = j.format_identifier AND j.format_version_sort BETWEEN f.low AND f.high)
                        WHEN 'rerender' THEN j.format_identifier IS NULL OR EXISTS (
                            SELECT 1 FROM unnest(identifiers, highs) AS f(identifier, high)
                             WHERE f.identifier = j.format_identifier
                               AND (j.format_version_sort IS NULL OR f.high >= j.format_version_sort))
                        ELSE true END)
                   AND NOT EXISTS (
                        SELECT 1 FROM darkroom.jobs AS other
                         WHERE other.asset_id = j.asset_id AND other.id <> j.id AND other.state IN ('queued', 'running')
                           AND (other.state = 'running' OR other.priority > j.priority
                                OR (other.priority = j.priority AND other.id < j.id)))
                 ORDER BY j.priority DESC, j.run_at, j.id
                 LIMIT max_jobs
                   FOR UPDATE SKIP LOCKED
            )
            UPDATE darkroom.jobs AS j
               SET state = 'running', attempts = j.attempts + 1, lease_token = gen_random_uuid(),
                   leased_by = worker_name, lease_expires_at = now() + make_interval(secs => lease_seconds),
                   started_at = now()
              FROM next
             WHERE j.id = next.id
            RETURNING j.*;
        END $$;

        CREATE OR REPLACE FUNCTION darkroom.require_asset(asset_id bigint) RETURNS bigint
        LANGUAGE plpgsql STABLE AS $$
        BEGIN
            IF require_asset.asset_id IS NULL THEN
                RAISE EXCEPTION 'asset_id must not be NULL' USING ERRCODE = 'null_value_not_allowed',
                    HINT = 'pass the id of a row in darkroom.assets';
            END IF;
            IF NOT EXISTS (SELECT 1 FROM darkroom.assets AS a WHERE a.id = require_asset.asset_id) THEN
                RAISE EXCEPTION 'asset % does not exist', require_asset.asset_id USING ERRCODE = 'foreign_key_violation',
                    HINT = 'existing ids are in darkroom.assets';
            END IF;
            RETURN asset_id;
        END $$;

        CREATE OR REPLACE FUNCTION darkroom.require_job_options(priority int, batch text) RETURNS void
        LANGUAGE plpgsql IMMUTABLE AS $$
        DECLARE
            problem text := darkroom.batch_problem(batch);
        BEGIN
            IF priority IS NULL OR priority NOT BETWEEN -1000 AND 1000 THEN
                RAISE EXCEPTION 'priority must be between -1000 and 1000, got %', coalesce(priority::text, 'NULL')
                    USING ERRCODE = 'invalid_parameter_value', HINT = '0 is normal; higher numbers run first';
            END IF;
            IF problem IS NOT NULL THEN
                RAISE EXCEPTION '%', problem USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END $$;

        -- Queues a revert of the asset: to the original, or (last_only) without the top layer of
        -- its chain, the rest re-rendered. It runs after the asset's queued jobs of the same or
        -- higher priority. Refused when the asset has no edit and none queued. Returns the job id.
        CREATE OR REPLACE FUNCTION darkroom.enqueue_revert(
            asset_id bigint, last_only boolean DEFAULT false, priority int DEFAULT 0, batch text DEFAULT NULL
        ) RETURNS bigint
        LANGUAGE plpgsql SECURITY INVOKER AS $$
        DECLARE
            new_job_id bigint;
        BEGIN
            PERFORM darkroom.require_asset(enqueue_revert.asset_id);
            PERFORM darkroom.require_job_options(priority, batch);
            IF last_only IS NULL THEN
                RAISE EXCEPTION 'last_only must not be NULL' USING ERRCODE = 'null_value_not_allowed',
                    HINT = 'false reverts to the original; true removes only the last layer';
            END IF;
            IF NOT EXISTS (SELECT 1 FROM darkroom.assets AS a
                            WHERE a.id = enqueue_revert.asset_id AND a.current_adjustment_id IS NOT NULL)
               AND NOT EXISTS (SELECT 1 FROM darkroom.jobs AS j
                                WHERE j.asset_id = enqueue_revert.asset_id AND j.state IN ('queued', 'running')) THEN
                RAISE EXCEPTION 'asset % has no edits to revert: it shows its original', enqueue_revert.asset_id
                    USING ERRCODE = 'no_data_found', HINT = 'darkroom history --asset ID shows what happened to it';
            END IF;
            INSERT INTO darkroom.jobs (asset_id, kind, priority, batch)
            VALUES (enqueue_revert.asset_id, CASE WHEN last_only THEN 'revert_last' ELSE 'revert' END,
                    enqueue_revert.priority, enqueue_revert.batch)
            RETURNING id INTO new_job_id;
            RETURN new_job_id;
        END $$;

        -- After an editor upgrade: queues one re-render per asset whose current chain has a layer
        -- in format_identifier (below below_version, if given), in one INSERT ... SELECT (one
        -- NOTIFY), skipping assets with the same re-render already queued or running. Workers
        -- that write below below_version do not claim these jobs. Returns how many were queued.
        CREATE OR REPLACE FUNCTION darkroom.enqueue_rerender(
            format_identifier text, below_version text DEFAULT NULL, priority int DEFAULT -20, batch text DEFAULT NULL
        ) RETURNS bigint
        LANGUAGE plpgsql SECURITY INVOKER AS $$
        DECLARE
            queued bigint;
            below_key text;
        BEGIN
            PERFORM darkroom.require_reverse_dns(enqueue_rerender.format_identifier);
            IF below_version IS NOT NULL THEN
                below_key := darkroom.semver_sort_key(darkroom.require_semver(below_version));
            END IF;
            PERFORM darkroom.require_job_options(priority, batch);
            WITH RECURSIVE chain AS (
                SELECT s.id AS asset_id, a.base_adjustment_id, a.format_identifier, a.format_version
                  FROM darkroom.assets AS s
                  JOIN darkroom.adjustments AS a ON a.id = s.current_adjustment_id
                UNION ALL
                SELECT c.asset_id, b.base_adjustment_id, b.format_identifier, b.format_version
                  FROM chain AS c
                  JOIN darkroom.adjustments AS b ON b.id = c.base_adjustment_id
            ), affected AS (
                SELECT DISTINCT c.asset_id
                  FROM chain AS c
                 WHERE c.format_identifier = enqueue_rerender.format_identifier
                   AND (below_key IS NULL OR darkroom.semver_sort_key(c.format_version) < below_key)
            )
            INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version, priority, batch)
            SELECT f.asset_id, 'rerender', enqueue_rerender.format_identifier, below_version,
                   enqueue_rerender.priority, enqueue_rerender.batch
              FROM affected AS f
             WHERE NOT EXISTS (
                   SELECT 1 FROM darkroom.jobs AS j
                    WHERE j.asset_id = f.asset_id AND j.state IN ('queued', 'running') AND j.kind = 'rerender'
                      AND j.format_identifier IS NOT DISTINCT FROM enqueue_rerender.format_identifier
                      AND j.format_version IS NOT DISTINCT FROM below_version)
             ORDER BY f.asset_id;
            GET DIAGNOSTICS queued = ROW_COUNT;
            RETURN queued;
        END $$;

        -- Queued jobs no live worker can claim. Reverts and whole-chain re-renders never wait here.
        DROP VIEW IF EXISTS darkroom.waiting_for_editor;
        CREATE VIEW darkroom.waiting_for_editor AS
        SELECT j.kind, j.format_identifier, j.format_version, count(*) AS jobs, min(j.created_at) AS oldest
          FROM darkroom.jobs AS j
         WHERE j.state = 'queued' AND j.format_identifier IS NOT NULL
           AND NOT EXISTS (
               SELECT 1 FROM darkroom.worker_status AS w, jsonb_array_elements(w.formats) AS f
                WHERE w.alive AND f->>'identifier' = j.format_identifier
                  AND CASE j.kind
                      WHEN 'edit' THEN j.format_version_sort
                           BETWEEN darkroom.semver_sort_key(f->>'min') AND darkroom.semver_sort_key(f->>'max')
                      ELSE j.format_version_sort IS NULL OR darkroom.semver_sort_key(f->>'max') >= j.format_version_sort END)
         GROUP BY j.kind, j.format_identifier, j.format_version;
        """#)
}
