SELECT version FROM darkroom.schema_migrations ORDER BY version
