-- Records how an operator script's run ended: 'succeeded' or 'failed' (OperatorScriptRuns.finish).
UPDATE darkroom.job_runs SET status = $2, finished_at = now(), result = $3 WHERE id = $1
