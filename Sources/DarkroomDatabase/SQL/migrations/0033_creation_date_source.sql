-- Where an asset's capture date came from: the EXIF tag (`EXIF DateTimeOriginal`), the XMP
-- property (`XMP xmp:CreateDate`) or an image sequence's QuickTime metadata (`QuickTime mvhd`),
-- as the import read it; NULL without a date. The importer's words, bounded as a name is.
ALTER TABLE darkroom.assets ADD COLUMN IF NOT EXISTS creation_date_source text
    CONSTRAINT assets_creation_date_source_bounded CHECK (length(creation_date_source) BETWEEN 1 AND 256);

-- register_asset takes it as its last argument (definitions/register_asset.sql).
DROP FUNCTION IF EXISTS darkroom.register_asset(text, text, bigint, int, int, int, double precision,
    double precision, double precision, timestamptz, text);
