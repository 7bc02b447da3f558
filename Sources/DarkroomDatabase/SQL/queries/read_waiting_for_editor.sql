SELECT kind, format_identifier, format_version, jobs, oldest FROM darkroom.waiting_for_editor
 ORDER BY jobs DESC, kind, format_identifier, format_version
