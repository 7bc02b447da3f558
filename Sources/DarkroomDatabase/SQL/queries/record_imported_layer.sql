SELECT darkroom.record_imported_layer($1::bigint, $2::text, $3::text, $4::bytea, $5::text, $6::int,
                                      $7::int, $8::bigint)
