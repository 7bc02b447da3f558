-- Recording what the operator API did: every API function that changes something writes one
-- darkroom.audit_log row in its own transaction, through darkroom.record_action.

-- Who the application says is acting: the darkroom.actor setting, set for one transaction
-- with SELECT set_config('darkroom.actor', 'alice', true) before the call (transaction-local,
-- so it is safe through PgBouncer). NULL when unset. The database login is recorded beside
-- it: any session may name any actor, so the login says who vouched for the name.
CREATE OR REPLACE FUNCTION darkroom.current_actor() RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    actor text := nullif(current_setting('darkroom.actor', true), '');
BEGIN
    IF length(actor) > 200 OR actor ~ '[[:cntrl:]]' THEN
        RAISE EXCEPTION 'the darkroom.actor setting must be at most 200 characters without control characters, got %',
            quote_literal(left(actor, 60) || CASE WHEN length(actor) > 60 THEN '…' ELSE '' END)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'SELECT set_config(''darkroom.actor'', ''alice'', true) names who acts for this transaction';
    END IF;
    RETURN actor;
END $$;

-- One audit row for an action the calling API function took: the session's login, the
-- actor, the application, what was asked (arguments) and what came of it (result).
CREATE OR REPLACE FUNCTION darkroom.record_action(action text, arguments jsonb, result jsonb) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO darkroom.audit_log (database_user, actor, application, action, arguments, result)
    VALUES (session_user, darkroom.current_actor(), nullif(current_setting('application_name'), ''),
            record_action.action, record_action.arguments, record_action.result)
$$;

-- How an audit row names adjustment data (up to 1 MiB): by its size and SHA-256.
CREATE OR REPLACE FUNCTION darkroom.audited_data(data bytea) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object('data_bytes', octet_length(data), 'data_sha256', encode(sha256(data), 'hex'))
$$;
