SELECT id, asset_id, kind, state, format_identifier, format_version, data, priority, run_at, attempts,
       max_attempts, last_error, batch, lease_token, leased_by, lease_expires_at, created_at, started_at,
       finished_at, adjustment_id, outcome, warnings
  FROM darkroom.jobs WHERE id = $1
