-- Jobs by state (JobQueue.jobCounts: `darkroom status` and the queue's gauges).
SELECT state, count FROM darkroom.queue_summary
