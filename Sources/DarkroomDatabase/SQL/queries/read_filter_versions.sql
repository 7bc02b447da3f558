SELECT name, version, sha256, size, added_by, added_at, assets, newest FROM darkroom.filter_versions
