extension Migration {
    /// Wakes workers when jobs arrive, and keeps the adjustment history append-only.
    static let triggers = Migration(version: 2, name: "triggers", sql: #"""
        -- One wake-up per INSERT statement however many rows it added (none if it added no rows):
        -- a bulk enqueue of 10,000 edits must not send 10,000 notifications.
        CREATE OR REPLACE FUNCTION darkroom.notify_jobs_inserted() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM inserted_jobs) THEN
                PERFORM pg_notify('darkroom_jobs', '');
            END IF;
            RETURN NULL;
        END $$;

        CREATE OR REPLACE TRIGGER jobs_notify_workers
            AFTER INSERT ON darkroom.jobs
            REFERENCING NEW TABLE AS inserted_jobs
            FOR EACH STATEMENT EXECUTE FUNCTION darkroom.notify_jobs_inserted();

        -- History is never rewritten. The only deletion allowed is the cascade from deleting the
        -- asset itself, which takes its whole history with it.
        CREATE OR REPLACE FUNCTION darkroom.refuse_adjustment_changes() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM darkroom.assets WHERE id = OLD.asset_id) THEN
                RETURN OLD;
            END IF;
            RAISE EXCEPTION 'darkroom.adjustments is append-only: adjustment % cannot be %',
                OLD.id, CASE TG_OP WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END
                USING ERRCODE = 'restrict_violation',
                      HINT = 'record a new adjustment instead; deleting the asset removes its whole history';
        END $$;

        CREATE OR REPLACE TRIGGER adjustments_append_only
            BEFORE UPDATE OR DELETE ON darkroom.adjustments
            FOR EACH ROW EXECUTE FUNCTION darkroom.refuse_adjustment_changes();
        """#)
}
