-- A dashboard session by its token's hash, with the seconds it has left (DashboardSessions.load).
SELECT data::text AS data, seconds_left FROM darkroom.load_session($1)
