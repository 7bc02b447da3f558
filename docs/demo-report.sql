-- The tables `make demo` prints: each finished edit, where its JPEG is, and how long it took;
-- then each rendition written beside it.
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

-- And the renditions each of those renders wrote beside it (docs/renditions.md).
SELECT r.asset_id AS asset, r.name AS rendition, upper(r.format) AS format,
       :'storage' || '/' || r.path AS file, r.width || '×' || r.height AS size, pg_size_pretty(r.bytes) AS bytes
  FROM darkroom.adjustment_renditions r
  JOIN darkroom.adjustments a ON a.id = r.adjustment_id
 WHERE a.job_id >= :first_job
 ORDER BY r.adjustment_id, r.name;
