SELECT r.*, true AS current
  FROM darkroom.add_rendition($1::text, $2::text, $3::int, $4::int,
                              coalesce($5::text, 'all'), coalesce($6::text, 'source'), $7::text) AS r
