-- Registering an imported photo: the one way an importer (the worker role) adds an asset.

-- Inserts the asset, or finds the one already registered with the same content (then
-- nothing changes and created is false). original_path must stay inside the storage root;
-- the table's constraints check the rest (hash, sizes, orientation, location).
CREATE OR REPLACE FUNCTION darkroom.register_asset(
    original_path text, content_sha256 text, byte_size bigint, pixel_width int, pixel_height int,
    orientation int DEFAULT 1, latitude double precision DEFAULT NULL, longitude double precision DEFAULT NULL,
    altitude double precision DEFAULT NULL, creation_date timestamptz DEFAULT NULL, metadata_warnings text DEFAULT NULL,
    creation_date_source text DEFAULT NULL
) RETURNS TABLE (asset_id bigint, created boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM darkroom.require_stored_path(register_asset.original_path, 'original_path');
    LOOP
        INSERT INTO darkroom.assets AS a (original_path, content_sha256, byte_size, pixel_width, pixel_height,
                                          orientation, latitude, longitude, altitude, creation_date, metadata_warnings,
                                          creation_date_source)
        VALUES (register_asset.original_path, register_asset.content_sha256, register_asset.byte_size,
                register_asset.pixel_width, register_asset.pixel_height, coalesce(register_asset.orientation, 1),
                register_asset.latitude, register_asset.longitude, register_asset.altitude,
                register_asset.creation_date, register_asset.metadata_warnings, register_asset.creation_date_source)
        ON CONFLICT ON CONSTRAINT assets_content_sha256_unique DO NOTHING
        RETURNING a.id INTO asset_id;
        created := FOUND;
        IF NOT created THEN
            -- ON CONFLICT waited for a concurrent insert of the same file to commit, so it is visible now.
            SELECT a.id INTO asset_id FROM darkroom.assets AS a WHERE a.content_sha256 = register_asset.content_sha256;
        END IF;
        -- Not found only if the conflicting row was deleted in between: inserting again succeeds.
        IF asset_id IS NOT NULL THEN
            RETURN NEXT;
            RETURN;
        END IF;
    END LOOP;
END $$;
