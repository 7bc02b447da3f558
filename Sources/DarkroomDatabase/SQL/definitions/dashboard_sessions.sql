-- The dashboard's sessions, sign-in throttle and keys (tables: migrations 0018 and 0021). serve
-- may log in as a viewer, who writes no table: these run with the owner's rights, search_path
-- fixed.

-- Whether the login calling may hand out operator sessions: a member of the operator role, or
-- the schema's owner. A viewer login that stores a session for an operator account stores a
-- viewer's: whoever can call these functions directly cannot mint themselves an operator.
CREATE OR REPLACE FUNCTION darkroom.login_may_operate() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM darkroom.access_roles AS r JOIN pg_roles AS g ON g.rolname = r.role_name
                    WHERE r.kind = 'operator' AND pg_has_role(session_user, g.oid, 'MEMBER'))
        OR EXISTS (SELECT 1 FROM pg_namespace AS n WHERE n.nspname = 'darkroom' AND n.nspowner = (SELECT oid FROM pg_roles WHERE rolname = session_user))
$$;

-- Stores a session (a new one, or the same token's again). data's "user" and "role" become the
-- account and role columns (the role capped by login_may_operate); expires_in NULL keeps the
-- stored expiry (a new session: a day). only_new: false, and nothing stored, if it exists.
CREATE OR REPLACE FUNCTION darkroom.save_session(token_hash bytea, data jsonb, expires_in double precision, only_new boolean)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    wanted text := save_session.data->>'role';
    granted text := CASE WHEN wanted = 'operator' AND NOT darkroom.login_may_operate() THEN 'viewer' ELSE wanted END;
    expiry timestamptz := now() + make_interval(secs => save_session.expires_in);
    stored int;
BEGIN
    IF expires_in IS NOT NULL AND NOT (expires_in > 0 AND expires_in <= 31 * 86400) THEN
        RAISE EXCEPTION 'a session lasts more than 0 s and at most 31 days, not % s', expires_in USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO darkroom.dashboard_sessions AS s (token_hash, account, role, data, expires_at)
    VALUES (save_session.token_hash, save_session.data->>'user', granted, save_session.data - 'user' - 'role',
            coalesce(expiry, now() + interval '1 day'))
    ON CONFLICT ON CONSTRAINT dashboard_sessions_pkey DO UPDATE
       SET account = excluded.account, role = excluded.role, data = excluded.data,
           expires_at = CASE WHEN save_session.expires_in IS NULL THEN s.expires_at ELSE excluded.expires_at END
     WHERE NOT save_session.only_new;
    GET DIAGNOSTICS stored = ROW_COUNT;
    RETURN stored = 1;
END $$;

-- A live session's data with its account and role, and the seconds it has left.
CREATE OR REPLACE FUNCTION darkroom.load_session(token_hash bytea)
RETURNS TABLE (data jsonb, seconds_left double precision)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT s.data || jsonb_build_object('user', s.account, 'role', s.role),
           extract(epoch FROM s.expires_at - now())::double precision
      FROM darkroom.dashboard_sessions AS s
     WHERE s.token_hash = load_session.token_hash AND s.expires_at > now()
$$;

CREATE OR REPLACE FUNCTION darkroom.end_session(token_hash bytea) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DELETE FROM darkroom.dashboard_sessions AS s WHERE s.token_hash = end_session.token_hash
$$;

-- The key for `purpose` (migration 0021), the same for every serve replica: the stored one,
-- else a new one from the server's strong random source (two version 4 UUIDs: 244 random
-- bits), stored now. Made here, not handed in, so no caller can plant a key it knows. To
-- replace it: delete its row and restart every serve (open sign-in forms then need a reload).
CREATE OR REPLACE FUNCTION darkroom.dashboard_key(purpose text) RETURNS bytea
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    INSERT INTO darkroom.dashboard_keys AS k (purpose, key)
    VALUES (dashboard_key.purpose, sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())))
    ON CONFLICT ON CONSTRAINT dashboard_keys_pkey DO NOTHING;
    RETURN (SELECT k.key FROM darkroom.dashboard_keys AS k WHERE k.purpose = dashboard_key.purpose);
END $$;

-- How long to wait after `failures` consecutive failed sign-ins: five are free, then 1 s,
-- doubling, at most 15 minutes. The one place the backoff is decided.
CREATE OR REPLACE FUNCTION darkroom.sign_in_backoff(failures int) RETURNS interval
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN sign_in_backoff.failures < 5 THEN interval '0'
                ELSE least(interval '1 second' * power(2, least(sign_in_backoff.failures - 5, 20)), interval '15 minutes') END
$$;

-- Seconds before this account name and this client address may try again (0: now). Failures
-- a day old are forgotten.
CREATE OR REPLACE FUNCTION darkroom.sign_in_wait(account text, address text) RETURNS double precision
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT greatest(0, coalesce(max(extract(epoch FROM f.last_failure_at + darkroom.sign_in_backoff(f.failures) - now())), 0))::double precision
      FROM darkroom.sign_in_failures AS f
     WHERE ((f.scope = 'account' AND f.key = sign_in_wait.account) OR (f.scope = 'address' AND f.key = sign_in_wait.address))
       AND f.last_failure_at > now() - interval '1 day'
$$;

-- Records a sign-in's outcome: a failure counts against the account name and the address; a
-- success clears the account name's count only. The address's count stays until a day passes
-- without a failure: else whoever holds one account could sign in between guesses at others'
-- passwords and never be slowed. Returns the wait that applies now.
CREATE OR REPLACE FUNCTION darkroom.record_sign_in(account text, address text, succeeded boolean) RETURNS double precision
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF succeeded THEN
        DELETE FROM darkroom.sign_in_failures AS f
         WHERE f.scope = 'account' AND f.key = record_sign_in.account;
    ELSE
        INSERT INTO darkroom.sign_in_failures AS f (scope, key, failures, last_failure_at)
        VALUES ('account', record_sign_in.account, 1, now()), ('address', record_sign_in.address, 1, now())
        ON CONFLICT ON CONSTRAINT sign_in_failures_pkey DO UPDATE
           SET failures = CASE WHEN f.last_failure_at > now() - interval '1 day' THEN f.failures + 1 ELSE 1 END,
               last_failure_at = now();
    END IF;
    RETURN darkroom.sign_in_wait(account, address);
END $$;

-- Ended sessions and day-old failures; serve calls it every few minutes. Returns the sessions removed.
CREATE OR REPLACE FUNCTION darkroom.forget_expired_sessions() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    removed bigint;
BEGIN
    DELETE FROM darkroom.dashboard_sessions AS s WHERE s.expires_at <= now();
    GET DIAGNOSTICS removed = ROW_COUNT;
    DELETE FROM darkroom.sign_in_failures AS f WHERE f.last_failure_at <= now() - interval '1 day';
    RETURN removed;
END $$;
