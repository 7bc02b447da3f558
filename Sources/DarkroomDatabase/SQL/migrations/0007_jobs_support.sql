-- The orphan cleanup asks, per render file, whether any adjustment records it.
CREATE INDEX IF NOT EXISTS adjustments_by_rendered_path ON darkroom.adjustments (rendered_path);
