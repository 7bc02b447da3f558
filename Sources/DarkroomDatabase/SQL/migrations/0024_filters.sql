-- Filters as data: each version of a named `.cube` LUT, stored content-addressed in the storage
-- (StorageLayout.filter: filters/ab/<sha256>.cube) and recorded here once. A version is never
-- changed (definitions/filters.sql refuses updates) and never removed while an adjustment uses
-- it (adjustment_filters' foreign key). Version order is semver.sql's: version_sort.
CREATE TABLE IF NOT EXISTS darkroom.filters (
    name         text NOT NULL
        CONSTRAINT filters_name_is_a_word CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
    version      text NOT NULL CONSTRAINT filters_version_is_semver CHECK (darkroom.is_semver(version)),
    version_sort text COLLATE "C" NOT NULL GENERATED ALWAYS AS (darkroom.semver_sort_key(version)) STORED,
    -- Which version an edit that names none gets: the highest release, else the highest
    -- pre-release (releases sort first by their leading '1'). The one place that says so.
    newest_order text COLLATE "C" NOT NULL GENERATED ALWAYS AS (
        CASE WHEN position('-' IN split_part(version, '+', 1)) = 0 THEN '1' ELSE '0' END
        || darkroom.semver_sort_key(version)) STORED,
    sha256       text NOT NULL CONSTRAINT filters_sha256_is_hex CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    size         bigint NOT NULL CONSTRAINT filters_size_positive CHECK (size > 0),
    added_by     text NOT NULL,
    added_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (name, version),
    -- 1.0 and 1.0.0 (or 1.0.0+a and 1.0.0+b) are one version: the order has no place for two.
    CONSTRAINT filters_one_row_per_precedence UNIQUE (name, version_sort)
);

-- Which filter versions each adjustment record's data uses (filled when the record is written,
-- definitions/filters.sql): what `rerender --filter` and the filters page count.
CREATE TABLE IF NOT EXISTS darkroom.adjustment_filters (
    adjustment_id bigint NOT NULL REFERENCES darkroom.adjustments ON DELETE CASCADE,
    name          text NOT NULL,
    version       text NOT NULL,
    sha256        text NOT NULL,
    PRIMARY KEY (adjustment_id, name, version),
    CONSTRAINT adjustment_filters_version_exists FOREIGN KEY (name, version)
        REFERENCES darkroom.filters (name, version) ON DELETE RESTRICT ON UPDATE RESTRICT
);
CREATE INDEX IF NOT EXISTS adjustment_filters_by_filter ON darkroom.adjustment_filters (name, version);
