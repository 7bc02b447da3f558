-- Edits `make demo` queues, one statement each, exactly as an operator would with psql.
-- Parameters: :a1 … :a7, the asset ids `darkroom import` printed (:a7 is the iPhone HEIC).
SELECT darkroom.enqueue_edit(:a1, 'io.darkroom.pipeline', '1.0.0',
  '{"operations":[{"op":"sepia","intensity":0.9},{"op":"vignette","intensity":1.2,"radius":0.9}]}'::jsonb) AS job;
SELECT darkroom.enqueue_edit(:a2, 'io.darkroom.pipeline', '1.0.0',
  '{"operations":[{"op":"exposure","ev":0.7},{"op":"vignette","intensity":0.8}]}'::jsonb) AS job;
SELECT darkroom.enqueue_edit(:a3, 'io.darkroom.pipeline', '1.0.0',
  '{"operations":[{"op":"crop","x":100,"y":50,"width":400,"height":300},{"op":"sepia"}]}'::jsonb) AS job;
SELECT darkroom.enqueue_edit(:a4, 'io.darkroom.pipeline', '1.0.0',
  '{"operations":[{"op":"exposure","ev":-0.5},{"op":"vignette","intensity":4,"radius":1.4}]}'::jsonb) AS job;
SELECT darkroom.enqueue_edit(:a5, 'io.darkroom.pipeline', '1.0.0',
  '{"operations":[{"op":"sepia","intensity":0.5}]}'::jsonb) AS job;
SELECT darkroom.enqueue_edit(:a6, 'io.darkroom.pipeline', '1.0.0',
  '{"operations":[{"op":"vignette","intensity":-0.6,"radius":1.2}]}'::jsonb) AS job;
SELECT darkroom.enqueue_edit(:a7, 'io.darkroom.pipeline', '1.0.0',
  '{"operations":[{"op":"sepia","intensity":0.9},{"op":"vignette","intensity":1.2,"radius":0.9}]}'::jsonb) AS job;
