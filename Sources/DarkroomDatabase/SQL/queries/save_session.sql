-- Stores a dashboard session; with $4 only if it is new (DashboardSessions.save).
SELECT darkroom.save_session($1, $2::jsonb, $3, $4) AS stored
