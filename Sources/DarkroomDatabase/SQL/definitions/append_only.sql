-- The adjustment records and the asset history are never rewritten: the only deletion
-- allowed is the cascade from deleting the asset itself, which takes its whole history.

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
