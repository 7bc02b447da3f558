SELECT queued, batch_name, to_version
  FROM darkroom.enqueue_filter_rerender($1::text, $2::text, $3::int, $4::int, $5::int, $6::text)
