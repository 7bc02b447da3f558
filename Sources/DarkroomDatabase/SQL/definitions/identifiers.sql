-- Reverse-DNS format identifiers (io.darkroom.pipeline): the one definition of what is valid.
-- CHECK constraints call reverse_dns_problem, so this file is applied before the migrations.

-- NULL when the identifier is fine, otherwise what is wrong with it.
CREATE OR REPLACE FUNCTION darkroom.reverse_dns_problem_detail(identifier text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    labels text[] := string_to_array(identifier, '.');
    label text;
    label_number int := 0;
BEGIN
    IF identifier IS NULL THEN RETURN 'it is missing'; END IF;
    IF identifier = '' THEN RETURN 'it is empty'; END IF;
    IF length(identifier) > 255 THEN
        RETURN format('it is %s characters long; the limit is 255', length(identifier));
    END IF;
    IF cardinality(labels) < 2 THEN RETURN 'it needs at least two dot-separated labels'; END IF;
    FOREACH label IN ARRAY labels LOOP
        label_number := label_number + 1;
        IF label = '' THEN RETURN format('label %s is empty', label_number); END IF;
        IF label !~ '^[A-Za-z0-9-]+$' THEN
            RETURN format('label %s (%L) may contain only letters, digits and hyphens', label_number, label);
        END IF;
        IF label ~ '^-|-$' THEN
            RETURN format('label %s (%L) starts or ends with a hyphen', label_number, label);
        END IF;
    END LOOP;
    RETURN NULL;
END $$;

-- Whether an identifier is fine: one regular expression. Plain SQL, so it is inlined into
-- the cached plans of the PL/pgSQL functions that call it (the row rules of row_rules.sql).
CREATE OR REPLACE FUNCTION darkroom.is_reverse_dns(identifier text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT length(identifier) <= 255
       AND identifier ~ '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$'
$$;

-- NULL when the identifier is fine; only one that fails is_reverse_dns goes to the detailed
-- check that says what is wrong.
CREATE OR REPLACE FUNCTION darkroom.reverse_dns_problem(identifier text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN CASE WHEN darkroom.is_reverse_dns(identifier) THEN NULL ELSE darkroom.reverse_dns_problem_detail(identifier) END;
END $$;

-- The identifier itself, or an error naming what is wrong: for parameters of plain SQL jobs.
CREATE OR REPLACE FUNCTION darkroom.require_reverse_dns(identifier text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    problem text := darkroom.reverse_dns_problem(identifier);
BEGIN
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'format identifier % is not reverse-DNS: %', quote_nullable(identifier), problem
            USING ERRCODE = 'invalid_parameter_value', HINT = 'e.g. io.darkroom.pipeline';
    END IF;
    RETURN identifier;
END $$;
