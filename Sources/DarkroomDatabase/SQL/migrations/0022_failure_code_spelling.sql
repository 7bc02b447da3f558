-- One spelling for failure codes: snake_case. Workers before this wrote three codes in camelCase
-- (spelled from the codecs' Swift names); the failures they record keep their meaning under the
-- new spelling, in each attempt's `errors[].code` and in the code that prefixes `last_error`,
-- so an operator's query for `heif_too_large` finds the old failures too. Jobs are the only rows
-- that hold failure codes (the views read them from there).
WITH spelling (old, new) AS (
    VALUES ('jpeg_outOfMemory', 'jpeg_out_of_memory'),
           ('heif_tooLarge', 'heif_too_large'),
           ('heif_outOfMemory', 'heif_out_of_memory')
)
UPDATE darkroom.jobs j
   SET errors = (
           SELECT jsonb_agg(
                      CASE WHEN s.new IS NULL THEN e.entry ELSE jsonb_set(e.entry, '{code}', to_jsonb(s.new)) END
                      ORDER BY e.n)
             FROM jsonb_array_elements(j.errors) WITH ORDINALITY AS e (entry, n)
             LEFT JOIN spelling s ON s.old = e.entry ->> 'code'),
       last_error = coalesce(
           (SELECT s.new || substr(j.last_error, length(s.old) + 1)
              FROM spelling s
             WHERE starts_with(j.last_error, s.old || ':')),
           j.last_error)
 WHERE EXISTS (SELECT 1
                 FROM jsonb_array_elements(j.errors) AS e (entry)
                 JOIN spelling s ON s.old = e.entry ->> 'code')
    OR EXISTS (SELECT 1 FROM spelling s WHERE starts_with(j.last_error, s.old || ':'));
