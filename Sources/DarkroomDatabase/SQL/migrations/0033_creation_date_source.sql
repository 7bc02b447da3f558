-- Where an asset's capture date came from: the EXIF tag (`EXIF DateTimeOriginal`), the XMP
-- property (`XMP xmp:CreateDate`) or an image sequence's QuickTime metadata (`QuickTime mvhd`),
-- as the import read it; NULL without a date. Bounded by the asset's row rules (row_rules.sql).
ALTER TABLE darkroom.assets ADD COLUMN IF NOT EXISTS creation_date_source text;

-- register_asset takes it as its last argument (definitions/register_asset.sql), and the row
-- rules check it (definitions/row_rules.sql).
DROP FUNCTION IF EXISTS darkroom.register_asset(text, text, bigint, int, int, int, double precision,
    double precision, double precision, timestamptz, text);
DROP FUNCTION IF EXISTS darkroom.asset_row_is_valid(text, text, bigint, int, int, int, double precision,
    double precision);
