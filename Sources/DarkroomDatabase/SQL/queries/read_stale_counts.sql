SELECT reason, assets FROM darkroom.stale_counts($1::jsonb)
