-- Semantic versions (semver.org 2.0.0, PATCH optional as Apple's formats write "1.0"): what is
-- valid and how versions order, in one place. CHECK constraints and the generated column
-- jobs.format_version_sort call these, so this file is applied before the migrations.

-- NULL when the version is fine, otherwise what is wrong with it. Numbers have at most 9
-- digits, so every valid version has a sort key.
CREATE OR REPLACE FUNCTION darkroom.semver_problem_detail(version text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    numbers text[] := string_to_array(substring(version FROM '^[^-+]*'), '.');
    number text;
BEGIN
    IF version IS NULL THEN RETURN 'it is missing'; END IF;
    IF length(version) > 255 THEN
        RETURN format('it is %s characters long; the limit is 255', length(version));
    END IF;
    IF version ~ '^[vV]' THEN RETURN 'it starts with "v"; write the bare number'; END IF;
    IF cardinality(numbers) NOT IN (2, 3) THEN
        RETURN format('it has %s dot-separated numbers; use MAJOR.MINOR or MAJOR.MINOR.PATCH', coalesce(cardinality(numbers), 0));
    END IF;
    FOREACH number IN ARRAY numbers LOOP
        IF number !~ '^[0-9]+$' THEN RETURN format('%L is not a number', number); END IF;
        IF number ~ '^0[0-9]' THEN RETURN format('%L has a leading zero', number); END IF;
        IF length(number) > 9 THEN RETURN format('%L has more than 9 digits', number); END IF;
    END LOOP;
    IF version !~ '^[0-9]+\.[0-9]+(\.[0-9]+)?(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$' THEN
        RETURN 'its -pre-release or +build suffix is malformed: use dot-separated identifiers of [0-9A-Za-z-], numeric ones without leading zeros';
    END IF;
    RETURN NULL;
END $$;

-- Whether a version is fine: one regular expression. Plain SQL, so it is inlined into the
-- cached plans of the PL/pgSQL functions that call it (the row rules of row_rules.sql).
CREATE OR REPLACE FUNCTION darkroom.is_semver(version text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT length(version) <= 255
       AND version ~ '^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})(\.(0|[1-9][0-9]{0,8}))?(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'
$$;

-- NULL when the version is fine; only one that fails is_semver goes to the detailed check.
CREATE OR REPLACE FUNCTION darkroom.semver_problem(version text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN CASE WHEN darkroom.is_semver(version) THEN NULL ELSE darkroom.semver_problem_detail(version) END;
END $$;

-- The pre-release part of semver_sort_key: ' ' before each identifier; a numeric one as '0',
-- its length in three digits and its digits, an alphanumeric one as '1' and itself.
CREATE OR REPLACE FUNCTION darkroom.semver_prerelease_key(prerelease text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
    key text := '';
    identifier text;
BEGIN
    FOREACH identifier IN ARRAY string_to_array(prerelease, '.') LOOP
        key := key || ' ' || CASE WHEN identifier ~ '^[0-9]+$'
                                  THEN '0' || lpad(length(identifier)::text, 3, '0') || identifier
                                  ELSE '1' || identifier END;
    END LOOP;
    RETURN key;
END $$;

-- Versions as text whose byte order (COLLATE "C") is semver precedence (semver.org §11), so
-- an index or a BETWEEN can compare them. MAJOR.MINOR.PATCH, each zero-padded to 9 digits
-- (the most semver_problem allows); then '~' for a release, or for a pre-release one ' '
-- before each identifier: ' ' is below every identifier character, so a shorter list of
-- equal identifiers sorts first and every pre-release sorts below its release ('~').
-- A numeric identifier is '0', its length in three digits, then its digits (numbers compare
-- by value); an alphanumeric one is '1' and itself (ASCII order, above every number).
-- Build metadata does not count. Only valid versions have a meaningful key.
-- Tests/Fixtures/semver-precedence.txt holds the vectors both this and SemanticVersion pass.
CREATE OR REPLACE FUNCTION darkroom.semver_sort_key(version text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    -- Plain SQL without FROM, so it is inlined into the statement (and the generated column):
    -- a release needs no function call; only a pre-release's identifiers are looped over.
    SELECT CASE WHEN version IS NOT NULL THEN
           lpad(split_part(split_part(split_part(version, '+', 1), '-', 1), '.', 1), 9, '0') || '.'
        || lpad(split_part(split_part(split_part(version, '+', 1), '-', 1), '.', 2), 9, '0') || '.'
        || lpad(coalesce(nullif(split_part(split_part(split_part(version, '+', 1), '-', 1), '.', 3), ''), '0'), 9, '0')
        || CASE WHEN strpos(split_part(version, '+', 1), '-') = 0 THEN '~'
                ELSE darkroom.semver_prerelease_key(
                         substr(split_part(version, '+', 1), strpos(split_part(version, '+', 1), '-') + 1)) END
    END
$$;

-- The version itself, or an error naming what is wrong: for parameters of plain SQL jobs.
CREATE OR REPLACE FUNCTION darkroom.require_semver(version text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    problem text := darkroom.semver_problem(version);
BEGIN
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'version % is not a semantic version: %', quote_nullable(version), problem
            USING ERRCODE = 'invalid_parameter_value', HINT = 'use MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. 1.1.0';
    END IF;
    RETURN version;
END $$;
