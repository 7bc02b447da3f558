-- Removes ended sessions and day-old sign-in failures (DashboardSessions.forgetExpired).
SELECT darkroom.forget_expired_sessions() AS removed
