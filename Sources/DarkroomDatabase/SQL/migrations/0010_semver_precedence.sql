-- semver_sort_key now orders pre-release identifiers as semver.org §11 says (1.1.0-beta.2 <
-- 1.1.0-beta.11 < 1.1.0-rc.1), where it used to treat every pre-release of a version as equal.
-- A stored generated column keeps the keys it computed, so rebuild it with the new function.
ALTER TABLE darkroom.jobs DROP COLUMN IF EXISTS format_version_sort;
ALTER TABLE darkroom.jobs ADD COLUMN format_version_sort text COLLATE "C"
    GENERATED ALWAYS AS (darkroom.semver_sort_key(format_version)) STORED;

-- Migration 9 renamed the detailed validators to *_detail and put fast ones in their place,
-- but a CHECK constraint names its function by OID, so these four kept calling the slow
-- detailed check for every row. Point them at the fast validators (same answers).
ALTER TABLE darkroom.jobs
    DROP CONSTRAINT IF EXISTS jobs_format_identifier_is_reverse_dns,
    DROP CONSTRAINT IF EXISTS jobs_format_version_is_semver,
    ADD CONSTRAINT jobs_format_identifier_is_reverse_dns
        CHECK (format_identifier IS NULL OR darkroom.reverse_dns_problem(format_identifier) IS NULL),
    ADD CONSTRAINT jobs_format_version_is_semver
        CHECK (format_version IS NULL OR darkroom.semver_problem(format_version) IS NULL);
ALTER TABLE darkroom.adjustments
    DROP CONSTRAINT IF EXISTS adjustments_format_identifier_is_reverse_dns,
    DROP CONSTRAINT IF EXISTS adjustments_format_version_is_semver,
    ADD CONSTRAINT adjustments_format_identifier_is_reverse_dns CHECK (darkroom.reverse_dns_problem(format_identifier) IS NULL),
    ADD CONSTRAINT adjustments_format_version_is_semver CHECK (darkroom.semver_problem(format_version) IS NULL);
