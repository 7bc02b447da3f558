SELECT asset_id, created
  FROM darkroom.register_asset($1::text, $2::text, $3::bigint, $4::int, $5::int, $6::int, $7::double precision,
                               $8::double precision, $9::double precision, $10::timestamptz, $11::text, $12::text)
