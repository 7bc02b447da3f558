-- Pure validators of operator input: NULL when a value is fine, otherwise what is wrong.
-- The settings CHECK constraint calls setting_problem, so this file is applied before the
-- migrations; it must not read any table.

-- NULL when a batch name is fine (NULL itself means "no batch").
CREATE OR REPLACE FUNCTION darkroom.batch_problem(batch text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN batch IS NULL THEN NULL
        WHEN batch = '' THEN 'batch must not be empty; pass NULL for no batch'
        WHEN length(batch) > 200 THEN format('batch is %s characters long; the limit is 200', length(batch))
        WHEN batch ~ '[[:cntrl:]]' THEN 'batch must not contain control characters'
    END
$$;

-- What is wrong with a settings row, or NULL.
CREATE OR REPLACE FUNCTION darkroom.setting_problem(name text, value text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    CASE name
    WHEN 'crash_limit' THEN
        IF value !~ '^[1-9][0-9]{0,2}$' THEN RETURN 'crash_limit must be a whole number from 1 to 999'; END IF;
    WHEN 'keep_succeeded', 'keep_failed', 'keep_cancelled', 'forget_workers_after' THEN
        BEGIN
            IF value::interval < interval '0' THEN RETURN format('%s must not be negative', name); END IF;
        EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR interval_field_overflow THEN
            RETURN format('%s must be an interval such as ''7 days'', got %L', name, value);
        END;
    ELSE
        RETURN format('unknown setting %L; see SELECT * FROM darkroom.settings', name);
    END CASE;
    RETURN NULL;
END $$;

-- formats: NULL for any job, else [{"identifier": "io.darkroom.pipeline", "min": "1.0", "max": "1.0.0"}]
-- (inclusive). NULL when the list is fine, else what is wrong with it.
CREATE OR REPLACE FUNCTION darkroom.formats_problem(formats jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    entry jsonb;
    problem text;
BEGIN
    IF formats IS NULL THEN RETURN NULL; END IF;
    IF jsonb_typeof(formats) <> 'array' THEN
        RETURN 'formats must be a JSON array of {"identifier", "min", "max"} objects';
    END IF;
    FOR entry IN SELECT value FROM jsonb_array_elements(formats) LOOP
        IF jsonb_typeof(entry) <> 'object' OR jsonb_typeof(entry->'identifier') <> 'string'
           OR jsonb_typeof(entry->'min') <> 'string' OR jsonb_typeof(entry->'max') <> 'string' THEN
            RETURN format('formats entry %s must be {"identifier": text, "min": version, "max": version}', entry);
        END IF;
        problem := coalesce(darkroom.reverse_dns_problem(entry->>'identifier'),
                            darkroom.semver_problem(entry->>'min'), darkroom.semver_problem(entry->>'max'));
        IF problem IS NOT NULL THEN RETURN format('formats entry %s: %s', entry, problem); END IF;
    END LOOP;
    RETURN NULL;
END $$;

-- Whether a stored path (relative to the storage root) cannot name anything outside the
-- root: the rule of StorageKey (Sources/DarkroomStorage/StorageKey.swift), which both pass as
-- Tests/Fixtures/stored-paths.txt says. Plain SQL, so it is inlined into the cached plans of
-- the PL/pgSQL functions that call it (the row rules of row_rules.sql). Text cannot hold NUL.
CREATE OR REPLACE FUNCTION darkroom.is_stored_path(path text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT path <> '' AND left(path, 1) <> '/' AND NOT (string_to_array(path, '/') && ARRAY['..', '.', ''])
$$;

-- NULL when a stored path is fine (is_stored_path), otherwise why not.
CREATE OR REPLACE FUNCTION darkroom.stored_path_problem(path text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN CASE
        WHEN darkroom.is_stored_path(path) THEN NULL
        WHEN path IS NULL THEN 'it is missing'
        WHEN path = '' THEN 'it is empty'
        WHEN left(path, 1) = '/' THEN 'it is absolute; stored paths are relative to the storage root'
        ELSE 'it contains ''..'', ''.'' or an empty component'
    END;
END $$;

-- The path itself, or an error naming what is wrong with it, for functions that take paths.
CREATE OR REPLACE FUNCTION darkroom.require_stored_path(path text, what text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    problem text := darkroom.stored_path_problem(path);
BEGIN
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION '% % is refused: %', what, quote_nullable(path), problem
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'store paths relative to the storage root, e.g. originals/ab/ab12….jpg, without .. or . components';
    END IF;
    RETURN path;
END $$;
