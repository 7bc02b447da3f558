SELECT to_regclass('darkroom.access_roles') IS NOT NULL AS exists
