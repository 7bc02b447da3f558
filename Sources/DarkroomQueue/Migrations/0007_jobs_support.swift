extension Migration {
    /// What the `Jobs/` files lean on.
    static let jobsSupport = Migration(version: 7, name: "jobs_support", sql: #"""
        -- The orphan cleanup asks, per render file, whether any adjustment records it.
        CREATE INDEX IF NOT EXISTS adjustments_by_rendered_path ON darkroom.adjustments (rendered_path);

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
        """#)
}
