SELECT *, NULL::timestamptz AS removed_at, true AS current FROM darkroom.current_renditions
