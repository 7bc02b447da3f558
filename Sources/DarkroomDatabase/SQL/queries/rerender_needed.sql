SELECT EXISTS (SELECT 1 FROM darkroom.rerender_scope($2::text, $3::text, ARRAY[$1::bigint])) AS needed
