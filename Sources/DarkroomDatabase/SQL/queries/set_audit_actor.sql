SELECT set_config($1, $2, true)
