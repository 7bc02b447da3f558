-- Records the start of an operator script's run (OperatorScriptRuns.begin).
INSERT INTO darkroom.job_runs (name, params) VALUES ($1, $2::jsonb) RETURNING id
