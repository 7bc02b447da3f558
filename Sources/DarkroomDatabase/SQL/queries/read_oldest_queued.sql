-- The queued job that has waited longest (JobQueue.oldestQueued: `darkroom status` and the gauges).
SELECT job_id, run_at, age_seconds FROM darkroom.oldest_queued
