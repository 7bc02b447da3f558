SELECT name, version, format, path, width, height, bytes, state
  FROM darkroom.adjustment_renditions WHERE adjustment_id = $1 ORDER BY name
