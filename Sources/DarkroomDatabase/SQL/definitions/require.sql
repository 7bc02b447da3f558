-- Argument checks shared by the enqueue functions: an error naming the problem, or nothing.

CREATE OR REPLACE FUNCTION darkroom.require_asset(asset_id bigint) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF require_asset.asset_id IS NULL THEN
        RAISE EXCEPTION 'asset_id must not be NULL' USING ERRCODE = 'null_value_not_allowed',
            HINT = 'pass the id of a row in darkroom.assets';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM darkroom.assets AS a WHERE a.id = require_asset.asset_id) THEN
        RAISE EXCEPTION 'asset % does not exist', require_asset.asset_id USING ERRCODE = 'foreign_key_violation',
            HINT = 'existing ids are in darkroom.assets';
    END IF;
    RETURN asset_id;
END $$;

CREATE OR REPLACE FUNCTION darkroom.require_job_options(priority int, batch text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    problem text := darkroom.batch_problem(batch);
BEGIN
    IF priority IS NULL OR priority NOT BETWEEN -1000 AND 1000 THEN
        RAISE EXCEPTION 'priority must be between -1000 and 1000, got %', coalesce(priority::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = '0 is normal; higher numbers run first';
    END IF;
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION '%', problem USING ERRCODE = 'invalid_parameter_value';
    END IF;
END $$;
