-- What was done through the operator API, newest first: who (the login and the actor the
-- application named), what (action and arguments), when, and what came of it.
CREATE OR REPLACE VIEW darkroom.audit_trail AS
SELECT a.id, a.at, a.database_user, a.actor, a.application, a.action, a.arguments, a.result
  FROM darkroom.audit_log AS a
 ORDER BY a.id DESC;
