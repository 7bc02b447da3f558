-- The row rules checked when what they read is written (row_rules.sql says why): what a job
-- asks for on INSERT and on an UPDATE that sets its kind, format or data; an asset on INSERT
-- and on an UPDATE that sets its file or facts, not on the completions that move its current
-- adjustment.
-- A job's update is checked AFTER it: any BEFORE UPDATE row trigger on jobs, whatever its
-- column list, makes PostgreSQL compute the generated format_version_sort again on every
-- update, which parses semver_sort_key's SQL each time (more than the rules saved).
CREATE OR REPLACE TRIGGER jobs_request_rules
    BEFORE INSERT ON darkroom.jobs
    FOR EACH ROW EXECUTE FUNCTION darkroom.check_job_request();
CREATE OR REPLACE TRIGGER jobs_request_rules_on_update
    AFTER UPDATE OF kind, format_identifier, format_version, data ON darkroom.jobs
    FOR EACH ROW EXECUTE FUNCTION darkroom.check_job_request();
CREATE OR REPLACE TRIGGER assets_rules
    BEFORE INSERT OR UPDATE OF original_path, content_sha256, byte_size, pixel_width, pixel_height, orientation, latitude, longitude,
        creation_date_source
    ON darkroom.assets
    FOR EACH ROW EXECUTE FUNCTION darkroom.check_asset_row();
