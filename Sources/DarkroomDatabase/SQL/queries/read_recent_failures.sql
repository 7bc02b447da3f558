SELECT * FROM darkroom.recent_failures LIMIT $1
