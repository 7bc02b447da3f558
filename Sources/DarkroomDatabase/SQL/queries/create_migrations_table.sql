CREATE SCHEMA IF NOT EXISTS darkroom;
CREATE TABLE IF NOT EXISTS darkroom.schema_migrations (
    version    int PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);
