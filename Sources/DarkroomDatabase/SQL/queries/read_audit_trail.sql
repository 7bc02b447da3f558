SELECT id, at, database_user, actor, application, action, arguments, result
  FROM darkroom.audit_trail
 WHERE ($2::text IS NULL OR action = $2) AND ($3::text IS NULL OR actor = $3)
 ORDER BY id DESC
 LIMIT $1
