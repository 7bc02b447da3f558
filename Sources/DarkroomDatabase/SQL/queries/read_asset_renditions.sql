SELECT r.name, r.version, r.format, r.path, r.width, r.height, r.bytes, r.state
  FROM darkroom.adjustment_renditions AS r
  JOIN darkroom.asset_records AS s ON s.current_adjustment_id = r.adjustment_id
 WHERE s.id = $1 AND r.name = $2
