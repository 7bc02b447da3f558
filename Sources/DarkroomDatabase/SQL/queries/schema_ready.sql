-- Whether `darkroom migrate` has created the schema (Database.requireSchema).
SELECT to_regclass('darkroom.jobs') IS NOT NULL AS ready
