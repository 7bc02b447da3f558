-- The adjustment records, the asset history and the audit log are never rewritten. The only
-- deletion allowed is of an asset's records by deleting the asset, which takes its whole
-- history; audit rows are never deleted.

CREATE OR REPLACE FUNCTION darkroom.refuse_adjustment_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM darkroom.assets WHERE id = OLD.asset_id) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'darkroom.adjustments is append-only: adjustment % cannot be %',
        OLD.id, CASE TG_OP WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END
        USING ERRCODE = 'restrict_violation',
              HINT = 'record a new adjustment instead; deleting the asset removes its whole history';
END $$;

CREATE OR REPLACE TRIGGER adjustments_append_only
    BEFORE UPDATE OR DELETE ON darkroom.adjustments
    FOR EACH ROW EXECUTE FUNCTION darkroom.refuse_adjustment_changes();

CREATE OR REPLACE FUNCTION darkroom.refuse_history_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM darkroom.assets WHERE id = OLD.asset_id) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'darkroom.asset_history is append-only: entry % cannot be %',
        OLD.id, CASE TG_OP WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END
        USING ERRCODE = 'restrict_violation', HINT = 'deleting the asset removes its whole history';
END $$;

CREATE OR REPLACE TRIGGER asset_history_append_only
    BEFORE UPDATE OR DELETE ON darkroom.asset_history
    FOR EACH ROW EXECUTE FUNCTION darkroom.refuse_history_changes();

CREATE OR REPLACE FUNCTION darkroom.refuse_audit_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'darkroom.audit_log is append-only: entry % cannot be %',
        OLD.id, CASE TG_OP WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END
        USING ERRCODE = 'restrict_violation', HINT = 'what was done stays recorded';
END $$;

CREATE OR REPLACE TRIGGER audit_log_append_only
    BEFORE UPDATE OR DELETE ON darkroom.audit_log
    FOR EACH ROW EXECUTE FUNCTION darkroom.refuse_audit_changes();
