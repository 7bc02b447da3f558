-- The table `make demo` prints: each finished edit, where its JPEG is, and how long it took.
-- Parameters: :storage, the storage root (stored paths are relative to it);
-- :first_job, the first job this run queued.
SELECT a.asset_id                                                 AS asset,
       upper(split_part(s.original_path, '.', -1))
         || ' ' || s.pixel_width || '×' || s.pixel_height               AS original,
       (SELECT string_agg(op->>'op', '+' ORDER BY n)
          FROM jsonb_array_elements(convert_from(a.data, 'UTF8')::jsonb->'operations')
               WITH ORDINALITY AS e(op, n))                      AS edit,
       :'storage' || '/' || a.rendered_path                      AS output,
       a.rendered_width || '×' || a.rendered_height              AS size,
       pg_size_pretty(a.rendered_bytes)                          AS bytes,
       round(extract(epoch FROM j.finished_at - j.started_at) * 1000) || ' ms' AS time
  FROM darkroom.adjustments a
  JOIN darkroom.jobs j ON j.id = a.job_id
  JOIN darkroom.assets s ON s.id = a.asset_id
 WHERE j.id >= :first_job
 ORDER BY a.id;
