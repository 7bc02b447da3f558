-- A batch's failed jobs grouped by the code of their last attempt, most frequent first.
CREATE OR REPLACE VIEW darkroom.batch_failure_codes AS
SELECT j.batch, j.errors -> -1 ->> 'code' AS code, count(*) AS jobs, max(j.finished_at) AS last_failed_at
  FROM darkroom.jobs AS j
 WHERE j.state = 'failed' AND j.batch IS NOT NULL
 GROUP BY j.batch, j.errors -> -1 ->> 'code'
 ORDER BY count(*) DESC, code;

-- Every failed job grouped by the code of its last attempt, most frequent first: the codes
-- stored, whichever worker (and version) recorded them; the dashboard offers them as filters.
CREATE OR REPLACE VIEW darkroom.failure_codes AS
SELECT j.errors -> -1 ->> 'code' AS code, count(*) AS jobs, max(j.finished_at) AS last_failed_at
  FROM darkroom.jobs AS j
 WHERE j.state = 'failed' AND j.errors -> -1 ->> 'code' IS NOT NULL
 GROUP BY j.errors -> -1 ->> 'code'
 ORDER BY count(*) DESC, code;
