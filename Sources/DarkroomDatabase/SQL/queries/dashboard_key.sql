-- The key every replica shares for one purpose, made on first use (DashboardSessions.key).
SELECT darkroom.dashboard_key($1) AS key
