-- Leases due jobs (darkroom.claim_jobs decides which); the columns ClaimedJob reads.
SELECT id, asset_id, kind, format_identifier, format_version, data, priority, attempts, max_attempts,
       lease_token, leased_by, lease_expires_at, batch, run_at, crashes, filter_name, filter_version, filter_sha256
  FROM darkroom.claim_jobs($1::text, $2::int, $3::double precision, $4::jsonb, $5::text)
