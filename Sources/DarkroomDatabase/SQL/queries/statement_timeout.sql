-- SET LOCAL statement_timeout = $1 (milliseconds), which a bind cannot fill: ends with the transaction.
SELECT set_config('statement_timeout', $1::text, true)
