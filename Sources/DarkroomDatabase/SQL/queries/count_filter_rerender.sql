SELECT version, assets FROM darkroom.filter_rerender_counts($1::text, $2::text)
