-- Who may do what. Three group roles that cannot log in; people and processes log in as
-- roles of their own that are members of one (CREATE ROLE alice LOGIN IN ROLE darkroom_operator):
--   viewer   reads darkroom's views (queue_summary, batch_summary, failures, worker_status,
--            waiting_for_editor, audit_trail, asset_records, adjustment_records, …) and no
--            table; an asset's chain through asset_chain, which runs with the owner's rights;
--            the overview's stale count through stale_count.
--   operator reads what the viewer reads and calls the operator API: enqueue_edit(s),
--            enqueue_revert, enqueue_rerender, enqueue_filter_rerender, enqueue_stale_rerender,
--            add_filter, add_rendition, remove_rendition, cancel_job/batch, retry_job/batch, and filter_rerender_counts and
--            stale_counts (dry runs, which only read). It writes no table
--            itself: each of those functions runs with the owner's rights (SECURITY DEFINER,
--            search_path fixed to pg_catalog, pg_temp), validates what it is given and records
--            the action in darkroom.audit_log.
--   worker   calls the worker API (claim_jobs, heartbeat, complete/fail/release_job, …,
--            register_asset for imports, upgrade_filter_data for a filter upgrade's chain), which
--            also runs with the owner's rights, and reads
--            the photo and the layers it renders as AssetStore does (asset_records,
--            adjustment_records, asset_chain) and the renditions it writes (current_renditions) and, for current_chains and rerender_scope,
--            which run with its rights, darkroom.assets and darkroom.adjustments.
--   serve    keeps `darkroom serve`'s sessions, sign-in throttle and keys through
--            dashboard_sessions.sql's functions, and nothing else: serve's login is a member of
--            it and of the viewer or operator role. Apart, so that a person's viewer or operator
--            login cannot store a session for an account it names (and act as it on the
--            dashboard) nor read the key that signs the sign-in form.
-- Everything else (the tables, settings, prune_jobs, Jobs/ scripts, migrations) is the owner's,
-- and PUBLIC may do nothing in the schema.

-- Applies the above to four roles: the names given, else those recorded in
-- darkroom.access_roles by the last call, else darkroom_viewer, darkroom_operator,
-- darkroom_worker and darkroom_serve. Creates missing roles (NOLOGIN), strips each role (and a role a name
-- replaced) of everything in the schema, then grants the lists below, so the grants stay true
-- as functions and views change: `darkroom migrate` calls it after every other definition,
-- in the same transaction. Returns the roles and whether each was created now.
CREATE OR REPLACE FUNCTION darkroom.grant_access(viewer text DEFAULT NULL, operator text DEFAULT NULL, worker text DEFAULT NULL, serve text DEFAULT NULL)
RETURNS TABLE (kind text, role_name text, created boolean)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    -- What each role may call, by signature; a missing function fails the migration here.
    viewer_functions text[] := ARRAY[
        'darkroom.waiting_for_editor_rows()',  -- the waiting_for_editor view reads through it
        'darkroom.asset_chain(bigint)',
        -- the asset_jobs view's can_cancel and can_retry
        'darkroom.job_can_be_cancelled(text)', 'darkroom.job_can_be_retried(text, boolean)',
        -- the overview's stale count
        'darkroom.stale_count(jsonb)'];
    operator_functions text[] := ARRAY[
        'darkroom.enqueue_edit(bigint, text, text, bytea, int, text)',
        'darkroom.enqueue_edit(bigint, text, text, jsonb, int, text)',
        'darkroom.enqueue_edit(bigint, text, text, text, int, text)',
        'darkroom.enqueue_edits(bigint[], text, text, bytea, int, text)',
        'darkroom.enqueue_edits(bigint[], text, text, jsonb, int, text)',
        'darkroom.enqueue_revert(bigint, boolean, int, text)',
        'darkroom.enqueue_rerender(text, text, int, text)',
        'darkroom.add_filter(text, text, text, bigint)', 'darkroom.filter_rerender_counts(text, text)',
        'darkroom.add_rendition(text, text, int, int, text, text, text)', 'darkroom.remove_rendition(text)',
        'darkroom.enqueue_filter_rerender(text, text, int, int, int, text)',
        'darkroom.stale_counts(jsonb)', 'darkroom.enqueue_stale_rerender(jsonb, int, text)',
        'darkroom.cancel_job(bigint)', 'darkroom.cancel_batch(text)',
        'darkroom.retry_job(bigint)', 'darkroom.retry_batch(text, boolean)'];
    worker_functions text[] := ARRAY[
        'darkroom.claim_jobs(text, int, double precision, jsonb, text)', 'darkroom.lease_problem(double precision)',
        'darkroom.leases_have_expired()',
        'darkroom.rescue_expired_leases()',
        'darkroom.heartbeat(text, text, int, double precision, bigint[], uuid[], jsonb, boolean, text, bigint, int)',
        'darkroom.worker_stopped(text)',
        'darkroom.complete_job(bigint, uuid, boolean, bigint, text, text, bigint, text[], text[], bytea[], text[], int[], int[], bigint[], bigint[], jsonb, jsonb)',
        'darkroom.fail_job(bigint, uuid, boolean, double precision, text, text)',
        'darkroom.release_job(bigint, uuid, text, double precision)',
        'darkroom.completed_under_lease(bigint, uuid)',
        'darkroom.complete_renditions_job(bigint, uuid, bigint, jsonb, jsonb)', 'darkroom.missing_renditions(bigint)',
        -- missing_renditions runs with the worker's rights and asks these
        'darkroom.renditions_missing(jsonb)', 'darkroom.written_renditions(jsonb, jsonb)',
        'darkroom.register_asset(text, text, bigint, int, int, int, double precision, double precision, double precision, timestamptz, text, text)',
        'darkroom.record_imported_layer(bigint, text, text, bytea, text, int, int, bigint)',
        'darkroom.upgrade_filter_data(bytea, text, text, text)',
        -- These run with the worker's own rights over the two tables below.
        'darkroom.asset_chain(bigint)',
        'darkroom.current_chains(bigint[])', 'darkroom.rerender_scope(text, text, bigint[])',
        'darkroom.semver_sort_key(text)', 'darkroom.semver_prerelease_key(text)'];
    serve_functions text[] := ARRAY[
        'darkroom.save_session(bytea, jsonb, double precision, boolean)', 'darkroom.load_session(bytea)',
        'darkroom.end_session(bytea)', 'darkroom.sign_in_wait(text, text)', 'darkroom.record_sign_in(text, text, boolean)',
        'darkroom.forget_expired_sessions()', 'darkroom.dashboard_key(text)'];
    worker_tables text[] := ARRAY['darkroom.assets', 'darkroom.adjustments', 'darkroom.asset_records', 'darkroom.adjustment_records',
                                  'darkroom.current_renditions', 'darkroom.adjustment_rendition_files'];
    kinds text[] := ARRAY['viewer', 'operator', 'worker', 'serve'];
    given text[] := ARRAY[grant_access.viewer, grant_access.operator, grant_access.worker, grant_access.serve];
    names text[] := '{}';
    made boolean[] := '{}';
    strip text[] := '{}';
    previous text;
    chosen text;
    item text;
BEGIN
    FOR i IN 1 .. 4 LOOP
        SELECT r.role_name INTO previous FROM darkroom.access_roles AS r WHERE r.kind = kinds[i];
        chosen := coalesce(given[i], previous, 'darkroom_' || kinds[i]);
        IF chosen = '' OR octet_length(chosen) > 63 OR chosen ~ '^pg_' THEN
            RAISE EXCEPTION 'the % role name % is not usable: it must be 1 to 63 bytes and not start with pg_', kinds[i], quote_literal(chosen)
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF chosen = current_user OR EXISTS (
               SELECT 1 FROM pg_roles AS r WHERE r.rolname = chosen AND r.rolsuper
               UNION ALL
               SELECT 1 FROM pg_namespace AS n JOIN pg_roles AS r ON r.oid = n.nspowner
                WHERE n.nspname = 'darkroom' AND r.rolname = chosen) THEN
            RAISE EXCEPTION 'the % role cannot be %: it owns the schema, migrates it or is a superuser', kinds[i], quote_ident(chosen)
                USING ERRCODE = 'invalid_parameter_value', HINT = 'name a role of its own, e.g. darkroom_' || kinds[i];
        END IF;
        IF chosen = ANY (names) THEN
            RAISE EXCEPTION 'the viewer, operator, worker and serve roles must be four different roles; % is given twice', quote_ident(chosen)
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        made := made || false;
        IF NOT EXISTS (SELECT 1 FROM pg_roles AS r WHERE r.rolname = chosen) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', chosen);
                made[i] := true;
            EXCEPTION
                -- Another database's migration created it meanwhile: role names are cluster-wide.
                WHEN duplicate_object OR unique_violation THEN NULL;
                WHEN insufficient_privilege THEN
                    RAISE EXCEPTION 'role % does not exist and % may not create roles', quote_ident(chosen), current_user
                        USING ERRCODE = 'insufficient_privilege',
                              HINT = format('have an administrator run CREATE ROLE %I NOLOGIN, or migrate as a role with CREATEROLE', chosen);
            END;
        ELSIF EXISTS (SELECT 1 FROM pg_roles AS r WHERE r.rolname = chosen AND r.rolcanlogin) THEN
            RAISE WARNING 'role % can log in; darkroom''s roles are meant as groups of login roles', quote_ident(chosen)
                USING HINT = format('CREATE ROLE alice LOGIN IN ROLE %I', chosen);
        END IF;
        names := names || chosen;
        strip := strip || chosen;
        IF previous IS DISTINCT FROM chosen AND EXISTS (SELECT 1 FROM pg_roles AS r WHERE r.rolname = previous) THEN
            strip := strip || previous;
        END IF;
    END LOOP;

    REVOKE ALL ON SCHEMA darkroom FROM PUBLIC;
    REVOKE ALL ON ALL TABLES IN SCHEMA darkroom FROM PUBLIC;
    REVOKE ALL ON ALL SEQUENCES IN SCHEMA darkroom FROM PUBLIC;
    REVOKE ALL ON ALL ROUTINES IN SCHEMA darkroom FROM PUBLIC;
    FOREACH chosen IN ARRAY strip LOOP
        EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA darkroom FROM %I', chosen);
        EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA darkroom FROM %I', chosen);
        EXECUTE format('REVOKE ALL ON ALL ROUTINES IN SCHEMA darkroom FROM %I', chosen);
        EXECUTE format('REVOKE ALL ON SCHEMA darkroom FROM %I', chosen);
    END LOOP;

    EXECUTE format('GRANT USAGE ON SCHEMA darkroom TO %I, %I, %I, %I', names[1], names[2], names[3], names[4]);
    FOR item IN SELECT c.oid::regclass::text FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
                 WHERE n.nspname = 'darkroom' AND c.relkind IN ('v', 'm') LOOP
        EXECUTE format('GRANT SELECT ON %s TO %I, %I', item, names[1], names[2]);
    END LOOP;
    FOREACH item IN ARRAY viewer_functions LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I, %I', item::regprocedure, names[1], names[2]);
    END LOOP;
    FOREACH item IN ARRAY operator_functions LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', item::regprocedure, names[2]);
    END LOOP;
    FOREACH item IN ARRAY worker_functions LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', item::regprocedure, names[3]);
    END LOOP;
    FOREACH item IN ARRAY serve_functions LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', item::regprocedure, names[4]);
    END LOOP;
    FOREACH item IN ARRAY worker_tables LOOP
        EXECUTE format('GRANT SELECT ON %s TO %I', item::regclass, names[3]);
    END LOOP;

    DELETE FROM darkroom.access_roles;
    INSERT INTO darkroom.access_roles (kind, role_name) SELECT * FROM unnest(kinds, names);
    RETURN QUERY SELECT * FROM unnest(kinds, names, made);
END $$;
