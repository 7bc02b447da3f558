-- fail_job decides whether a failed attempt fails the job (attempt_fails_job, which the lease
-- rescue asks too): the worker now says whether the failure is permanent instead of which state
-- comes next. The old signature goes; SQL/definitions/job_reports.sql creates the new one.
DROP FUNCTION IF EXISTS darkroom.fail_job(bigint, uuid, text, double precision, text, text);
