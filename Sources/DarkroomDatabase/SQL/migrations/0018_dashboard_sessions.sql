-- The dashboard's sessions and its sign-in failures, in the database every `serve` replica
-- shares: a restart signs nobody out, and a browser may reach any replica.

-- A session is found by the SHA-256 of its cookie's token (the token itself is stored nowhere),
-- and ends at expires_at. account and role are the signed-in account (NULL before sign-in);
-- data is the rest of what the dashboard keeps (CSRF token, a flash message).
CREATE TABLE IF NOT EXISTS darkroom.dashboard_sessions (
    token_hash bytea PRIMARY KEY CONSTRAINT dashboard_sessions_token_hash_is_sha256 CHECK (octet_length(token_hash) = 32),
    account    text,
    role       text CONSTRAINT dashboard_sessions_role_known CHECK (role IN ('viewer', 'operator')),
    data       jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS dashboard_sessions_by_expiry ON darkroom.dashboard_sessions (expires_at);

-- Consecutive failed sign-ins per account name and per client address (definitions/
-- dashboard_sessions.sql decides the wait); a success clears both.
CREATE TABLE IF NOT EXISTS darkroom.sign_in_failures (
    scope           text NOT NULL CONSTRAINT sign_in_failures_scope_known CHECK (scope IN ('account', 'address')),
    key             text NOT NULL,
    failures        int NOT NULL,
    last_failure_at timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);
