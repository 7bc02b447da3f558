-- heartbeat now answers with darkroom.lease_loss's word for a lost lease instead of
-- (held, state); a function's result columns cannot be replaced in place, so drop the old
-- one here and definitions/heartbeat.sql creates the new one.
DROP FUNCTION IF EXISTS darkroom.heartbeat(text, text, int, double precision, bigint[], uuid[], jsonb, boolean);
