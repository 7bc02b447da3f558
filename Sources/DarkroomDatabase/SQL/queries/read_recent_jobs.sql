SELECT id, kind, state, batch, format_identifier, format_version, created_at, finished_at, can_cancel,
       can_retry
  FROM darkroom.asset_jobs WHERE asset_id = $1 ORDER BY id DESC LIMIT $2
