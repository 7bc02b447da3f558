-- Renditions as data: each version of a named output a render writes beside its full-size JPEG
-- (a grid thumbnail, a viewer preview, a share copy), in JPEG, WebP or AVIF. Adding a name
-- again makes its next version; a version is never changed (definitions/renditions.sql); a
-- removed name keeps its versions (records point at them) with removed_at set on the last.
CREATE TABLE IF NOT EXISTS darkroom.renditions (
    name         text NOT NULL
        -- part of a stored file's name (StorageLayout.rendition): lower case, no dot
        CONSTRAINT renditions_name_is_a_word CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,31}$' AND name !~ '^layer[0-9]+$'),
    version      int NOT NULL CONSTRAINT renditions_version_positive CHECK (version > 0),
    format       text NOT NULL CONSTRAINT renditions_format_known CHECK (format IN ('jpeg', 'webp', 'avif')),
    longest_side int NOT NULL CONSTRAINT renditions_longest_side_positive CHECK (longest_side > 0),
    -- NULL: the full render's quality (the built-in display copy, as before renditions)
    quality      int CONSTRAINT renditions_quality_in_range CHECK (quality BETWEEN 1 AND 100),
    metadata     text NOT NULL CONSTRAINT renditions_metadata_known CHECK (metadata IN ('all', 'no-location', 'none')),
    color        text NOT NULL CONSTRAINT renditions_color_known CHECK (color IN ('source', 'srgb')),
    hdr          text NOT NULL CONSTRAINT renditions_hdr_known CHECK (hdr IN ('keep', 'drop')),
    added_by     text NOT NULL,
    added_at     timestamptz NOT NULL DEFAULT now(),
    removed_by   text,
    removed_at   timestamptz,
    PRIMARY KEY (name, version)
);

-- The display copy every render wrote before renditions were data: JPEG, 2048 pixels, the
-- render's quality, everything kept. A library that defines nothing renders as it did.
INSERT INTO darkroom.renditions (name, version, format, longest_side, quality, metadata, color, hdr, added_by)
VALUES ('display', 1, 'jpeg', 2048, NULL, 'all', 'source', 'keep', 'darkroom')
ON CONFLICT DO NOTHING;

-- The renditions each adjustment record's render wrote (filled from its rendered_with when the
-- record is written, definitions/renditions.sql): what the asset page lists, what
-- `rerender --stale` finds out of date and what prune deletes once a rendition is removed.
CREATE TABLE IF NOT EXISTS darkroom.adjustment_rendition_files (
    adjustment_id bigint NOT NULL REFERENCES darkroom.adjustments ON DELETE CASCADE,
    name          text NOT NULL,
    version       int NOT NULL,
    format        text NOT NULL,
    path          text NOT NULL CONSTRAINT adjustment_rendition_files_path_stored CHECK (darkroom.is_stored_path(path)),
    width         int NOT NULL CHECK (width > 0),
    height        int NOT NULL CHECK (height > 0),
    bytes         bigint NOT NULL CHECK (bytes > 0),
    PRIMARY KEY (adjustment_id, name),
    CONSTRAINT adjustment_rendition_files_version_exists FOREIGN KEY (name, version)
        REFERENCES darkroom.renditions (name, version) ON DELETE RESTRICT ON UPDATE RESTRICT
);
CREATE INDEX IF NOT EXISTS adjustment_rendition_files_by_rendition
    ON darkroom.adjustment_rendition_files (name, version);
