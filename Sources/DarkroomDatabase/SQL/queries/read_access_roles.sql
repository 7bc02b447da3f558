SELECT kind, role_name, false AS created FROM darkroom.access_roles
 ORDER BY array_position(ARRAY['viewer', 'operator', 'worker', 'serve'], kind)
