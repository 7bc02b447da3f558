-- The dashboard's keys, one per purpose, shared by every `serve` replica (definitions/
-- dashboard_sessions.sql hands them out, making one on first use). 'sign-in' signs the sign-in
-- form's CSRF token, so that an anonymous visitor needs no stored session: one row for the
-- whole database, never one per visitor.
CREATE TABLE IF NOT EXISTS darkroom.dashboard_keys (
    purpose    text PRIMARY KEY CONSTRAINT dashboard_keys_purpose_known CHECK (purpose IN ('sign-in')),
    key        bytea NOT NULL CONSTRAINT dashboard_keys_key_is_256_bits CHECK (octet_length(key) = 32),
    created_at timestamptz NOT NULL DEFAULT now()
);
