-- Warnings a render met without spoiling its pixels (an original without its EOI marker,
-- bytes after its EOI marker, EXIF that could not be copied): on the adjustment whose render
-- met them, and on the job that wrote it (all its layers' warnings). Each column holds a JSON
-- array of objects: {"code": "jpeg.missing_eoi", "message": ..., "object": <storage key>,
-- "byte_offset": ..., "byte_count": ...}; "code" is stable, the rest is context. Operators find
-- such originals with `warnings @> '[{"code": "jpeg.missing_eoi"}]'` (docs/operations.md).
--
-- A constant default adds the columns without rewriting the tables; the checks are NOT VALID
-- so existing rows (all '[]') are not scanned under the lock, while every new row is checked.
ALTER TABLE darkroom.jobs ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]';
ALTER TABLE darkroom.jobs ADD CONSTRAINT jobs_warnings_is_array
    CHECK (jsonb_typeof(warnings) = 'array') NOT VALID;
ALTER TABLE darkroom.adjustments ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]';
ALTER TABLE darkroom.adjustments ADD CONSTRAINT adjustments_warnings_is_array
    CHECK (jsonb_typeof(warnings) = 'array') NOT VALID;

-- complete_job takes each layer's warnings now; a new argument list is a new function, so
-- drop the old one here and definitions/job_reports.sql creates the new one.
DROP FUNCTION IF EXISTS darkroom.complete_job(bigint, uuid, boolean, bigint, text, text, bigint, text[], text[], bytea[],
                                              text[], int[], int[], bigint[], bigint[]);
