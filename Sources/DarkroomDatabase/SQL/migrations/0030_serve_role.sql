-- serve's sessions, sign-in throttle and keys get a group role of their own (definitions/roles.sql):
-- a viewer's or an operator's database login can no longer store a session for an account it
-- names, nor read the key that signs the sign-in form. A new argument list is a new function:
-- drop the old one here, and definitions/roles.sql creates the new one.
ALTER TABLE darkroom.access_roles DROP CONSTRAINT IF EXISTS access_roles_kind_check;
ALTER TABLE darkroom.access_roles
    ADD CONSTRAINT access_roles_kind_check CHECK (kind IN ('viewer', 'operator', 'worker', 'serve'));
DROP FUNCTION IF EXISTS darkroom.grant_access(text, text, text);

-- The database login that stored each session: the dashboard's audit of what a session did
-- names its account, and this says which login made it.
ALTER TABLE darkroom.dashboard_sessions ADD COLUMN IF NOT EXISTS database_user text NOT NULL DEFAULT session_user;
