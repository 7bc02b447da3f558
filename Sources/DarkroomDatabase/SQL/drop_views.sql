-- Views hold no data, and a migration may need to change a column a view reads: every
-- `darkroom migrate` drops darkroom's views first and definitions/ creates them again.
DO $$
DECLARE
    view_name text;
BEGIN
    FOR view_name IN
        SELECT c.relname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
         WHERE n.nspname = 'darkroom' AND c.relkind = 'v'
    LOOP
        EXECUTE format('DROP VIEW IF EXISTS darkroom.%I CASCADE', view_name);
    END LOOP;
END $$;
