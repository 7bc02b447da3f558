SELECT * FROM darkroom.asset_records WHERE content_sha256 = $1
