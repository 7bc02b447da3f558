-- Reading the operator-tunable settings in darkroom.settings.

CREATE OR REPLACE FUNCTION darkroom.setting(name text) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT s.value FROM darkroom.settings AS s WHERE s.name = setting.name
$$;
