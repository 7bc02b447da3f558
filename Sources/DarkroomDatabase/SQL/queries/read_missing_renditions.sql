SELECT name, version, replaces FROM darkroom.missing_renditions($1)
