-- Wakes idle workers when jobs arrive: one NOTIFY on darkroom_jobs per INSERT statement.

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
