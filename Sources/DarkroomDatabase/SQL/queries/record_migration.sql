INSERT INTO darkroom.schema_migrations (version, name) VALUES ($1, $2)
