SELECT darkroom.remove_rendition($1::text) AS version
