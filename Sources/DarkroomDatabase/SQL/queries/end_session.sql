-- Signs a dashboard session out (DashboardSessions.end).
SELECT darkroom.end_session($1)
