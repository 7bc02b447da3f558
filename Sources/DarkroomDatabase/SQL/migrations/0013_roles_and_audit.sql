-- Who may do what (definitions/roles.sql grants it on every migrate) and what they did.

-- The group roles darkroom.grant_access last granted to, so a later `darkroom migrate`
-- without role flags keeps granting to the same roles.
CREATE TABLE IF NOT EXISTS darkroom.access_roles (
    kind      text PRIMARY KEY CHECK (kind IN ('viewer', 'operator', 'worker')),
    role_name text NOT NULL UNIQUE
);

-- One row per action taken through the operator API, written by the function that took it,
-- in the same transaction: an action that was refused or rolled back leaves no row. Never
-- updated or deleted (definitions/append_only.sql).
CREATE TABLE IF NOT EXISTS darkroom.audit_log (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at            timestamptz NOT NULL DEFAULT now(),
    -- The PostgreSQL login that acted (session_user: SET ROLE does not hide it).
    database_user text NOT NULL,
    -- Who the application says acted (the darkroom.actor setting), e.g. a dashboard account.
    actor         text,
    application   text,   -- application_name of the session
    action        text NOT NULL,
    arguments     jsonb NOT NULL,
    result        jsonb NOT NULL,
    CONSTRAINT audit_log_arguments_is_object CHECK (jsonb_typeof(arguments) = 'object'),
    CONSTRAINT audit_log_result_is_object CHECK (jsonb_typeof(result) = 'object')
);
CREATE INDEX IF NOT EXISTS audit_log_by_actor ON darkroom.audit_log (actor, id) WHERE actor IS NOT NULL;

-- Stored paths stay inside the storage root, whoever writes them. NOT VALID first, then
-- validated only when every existing row passes, so an old database with a bad row still
-- migrates (find them with darkroom.stored_path_problem, fix them, then VALIDATE CONSTRAINT).
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'assets_original_path_in_storage') THEN
        ALTER TABLE darkroom.assets ADD CONSTRAINT assets_original_path_in_storage
            CHECK (darkroom.stored_path_problem(original_path) IS NULL) NOT VALID;
        IF NOT EXISTS (SELECT 1 FROM darkroom.assets WHERE darkroom.stored_path_problem(original_path) IS NOT NULL) THEN
            ALTER TABLE darkroom.assets VALIDATE CONSTRAINT assets_original_path_in_storage;
        END IF;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'adjustments_rendered_path_in_storage') THEN
        ALTER TABLE darkroom.adjustments ADD CONSTRAINT adjustments_rendered_path_in_storage
            CHECK (darkroom.stored_path_problem(rendered_path) IS NULL) NOT VALID;
        IF NOT EXISTS (SELECT 1 FROM darkroom.adjustments WHERE darkroom.stored_path_problem(rendered_path) IS NOT NULL) THEN
            ALTER TABLE darkroom.adjustments VALIDATE CONSTRAINT adjustments_rendered_path_in_storage;
        END IF;
    END IF;
END $$;
