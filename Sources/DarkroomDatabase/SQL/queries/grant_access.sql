SELECT kind, role_name, created FROM darkroom.grant_access($1::text, $2::text, $3::text, $4::text)
