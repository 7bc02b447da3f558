SELECT to_regclass('darkroom.schema_migrations') IS NOT NULL AS exists
