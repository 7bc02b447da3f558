-- A layer can arrive with its original: an Apple Photos edit imported beside Apple's own render.
-- Its history entry says 'import' (no job made it).
ALTER TABLE darkroom.asset_history DROP CONSTRAINT IF EXISTS asset_history_action_check;
ALTER TABLE darkroom.asset_history ADD CONSTRAINT asset_history_action_check
    CHECK (action IN ('edit', 'revert', 'revert_last', 'rerender', 'import'));
