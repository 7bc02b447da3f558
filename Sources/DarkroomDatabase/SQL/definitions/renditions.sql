-- Renditions (migration 0031): the defaults and bounds of a definition, adding and removing
-- one, the current set a worker writes, recording what a render wrote, and the views the CLI,
-- the dashboard and `rerender --stale` read.

-- A version is data records point at: it is never changed, only marked removed.
CREATE OR REPLACE FUNCTION darkroom.refuse_rendition_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.name, NEW.version, NEW.format, NEW.longest_side, NEW.quality, NEW.metadata, NEW.color, NEW.hdr,
        NEW.added_by, NEW.added_at)
       IS DISTINCT FROM (OLD.name, OLD.version, OLD.format, OLD.longest_side, OLD.quality, OLD.metadata, OLD.color,
                         OLD.hdr, OLD.added_by, OLD.added_at) THEN
        RAISE EXCEPTION 'rendition % version % is never changed', OLD.name, OLD.version
            USING ERRCODE = 'restrict_violation',
            HINT = 'add it again with the new settings: darkroom rendition add NAME ... makes its next version';
    END IF;
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS renditions_never_change ON darkroom.renditions;
CREATE TRIGGER renditions_never_change BEFORE UPDATE ON darkroom.renditions
    FOR EACH ROW EXECUTE FUNCTION darkroom.refuse_rendition_update();

-- What a definition leaves out gets, per format: the one place these defaults live. JPEG and
-- WebP at the qualities photo services serve previews at; AVIF's scale reaches the same look
-- lower (docs/renditions.md measures it). HDR is kept where darkroom writes a gain map: Ultra HDR
-- in a JPEG, an ISO 21496-1 tmap item in an AVIF (libwebp has none).
CREATE OR REPLACE FUNCTION darkroom.rendition_defaults(format text)
RETURNS TABLE (quality int, hdr text, max_longest_side int)
LANGUAGE sql IMMUTABLE AS $$
    SELECT d.quality, d.hdr, d.max_longest_side
      FROM (VALUES ('jpeg', 85, 'keep', 65500),  -- JPEG's largest side
                   ('webp', 80, 'drop', 16383),  -- WEBP_MAX_DIMENSION
                   ('avif', 60, 'keep', 16384))  -- what darkroom's AVIF encoder is priced for
           AS d(format, quality, hdr, max_longest_side)
     WHERE d.format = rendition_defaults.format
$$;

-- The renditions a render writes now: each name's newest version, unless it was removed.
CREATE OR REPLACE VIEW darkroom.current_renditions AS
    SELECT r.name, r.version, r.format, r.longest_side, r.quality, r.metadata, r.color, r.hdr, r.added_by, r.added_at
      FROM (SELECT DISTINCT ON (x.name) x.* FROM darkroom.renditions AS x ORDER BY x.name, x.version DESC) AS r
     WHERE r.removed_at IS NULL
     ORDER BY r.name;

-- Adds the next version of `name` (the first when it has none, or when it was removed): the
-- operator API, audited, with the owner's rights. Refuses settings no render could write.
CREATE OR REPLACE FUNCTION darkroom.add_rendition(
    name text, format text, longest_side int, quality int DEFAULT NULL, metadata text DEFAULT 'all',
    color text DEFAULT 'source', hdr text DEFAULT NULL
) RETURNS darkroom.renditions
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    defaults record;
    added darkroom.renditions;
BEGIN
    IF add_rendition.name IS NULL OR add_rendition.name !~ '^[a-z0-9][a-z0-9_-]{0,31}$'
       OR add_rendition.name ~ '^layer[0-9]+$' THEN
        RAISE EXCEPTION 'rendition name % is not a name', quote_nullable(add_rendition.name)
            USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use 1 to 32 lower-case letters, digits, hyphens and underscores, starting with a letter or digit, not layerN (it is part of the file name)';
    END IF;
    SELECT d.*, CASE add_rendition.format WHEN 'jpeg' THEN 'a JPEG' WHEN 'webp' THEN 'a WebP' ELSE 'an AVIF' END
           AS named
      INTO defaults FROM darkroom.rendition_defaults(add_rendition.format) AS d;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'rendition %: format % is not one darkroom writes', add_rendition.name,
            quote_nullable(add_rendition.format) USING ERRCODE = 'invalid_parameter_value', HINT = 'use jpeg, webp or avif';
    END IF;
    IF add_rendition.longest_side IS NULL OR add_rendition.longest_side NOT BETWEEN 16 AND defaults.max_longest_side THEN
        RAISE EXCEPTION 'rendition %: a longest side of % pixels is not one % can have', add_rendition.name,
            coalesce(add_rendition.longest_side::text, 'NULL'), defaults.named
            USING ERRCODE = 'invalid_parameter_value',
            HINT = format('use 16 to %s pixels', defaults.max_longest_side);
    END IF;
    IF add_rendition.quality IS NOT NULL AND add_rendition.quality NOT BETWEEN 1 AND 100 THEN
        RAISE EXCEPTION 'rendition %: quality % is out of range', add_rendition.name, add_rendition.quality
            USING ERRCODE = 'invalid_parameter_value', HINT = 'use 1 to 100, or leave it out for the format''s default';
    END IF;
    IF add_rendition.metadata IS NULL OR add_rendition.metadata NOT IN ('all', 'no-location', 'none') THEN
        RAISE EXCEPTION 'rendition %: metadata % is not a choice', add_rendition.name, quote_nullable(add_rendition.metadata)
            USING ERRCODE = 'invalid_parameter_value', HINT = 'use all, no-location or none';
    END IF;
    IF add_rendition.color IS NULL OR add_rendition.color NOT IN ('source', 'srgb') THEN
        RAISE EXCEPTION 'rendition %: color % is not a choice', add_rendition.name, quote_nullable(add_rendition.color)
            USING ERRCODE = 'invalid_parameter_value', HINT = 'use source or srgb';
    END IF;
    IF add_rendition.hdr IS NOT NULL AND add_rendition.hdr NOT IN ('keep', 'drop') THEN
        RAISE EXCEPTION 'rendition %: hdr % is not a choice', add_rendition.name, quote_literal(add_rendition.hdr)
            USING ERRCODE = 'invalid_parameter_value', HINT = 'use keep or drop';
    END IF;
    IF add_rendition.hdr = 'keep' AND defaults.hdr <> 'keep' THEN
        RAISE EXCEPTION 'rendition %: darkroom cannot keep HDR in % (it writes a gain map only in a JPEG or an AVIF)',
            add_rendition.name, defaults.named USING ERRCODE = 'invalid_parameter_value',
            HINT = 'use --hdr drop (the rendition is then standard range), or --format avif or jpeg for one that keeps HDR';
    END IF;
    IF add_rendition.hdr = 'keep' AND add_rendition.color = 'srgb' THEN
        RAISE EXCEPTION 'rendition %: a gain map is made for the source''s colours, so --color srgb cannot keep it',
            add_rendition.name USING ERRCODE = 'invalid_parameter_value', HINT = 'use --color source or --hdr drop';
    END IF;
    IF add_rendition.name = 'display' AND add_rendition.format <> 'jpeg' THEN
        RAISE EXCEPTION 'the display rendition is a JPEG: the dashboard and PhotoKit''s display-size image read it'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'add a rendition of another name for another format';
    END IF;
    -- One version at a time per name: two adds at once must not both take the same number.
    PERFORM pg_advisory_xact_lock(hashtext('darkroom.renditions'), hashtext(add_rendition.name));
    INSERT INTO darkroom.renditions AS r (name, version, format, longest_side, quality, metadata, color, hdr, added_by)
    SELECT add_rendition.name, coalesce(max(x.version), 0) + 1, add_rendition.format, add_rendition.longest_side,
           coalesce(add_rendition.quality, defaults.quality), add_rendition.metadata, add_rendition.color,
           -- A map is made for the source's colours: an sRGB copy without a choice is standard range.
           coalesce(add_rendition.hdr, CASE WHEN add_rendition.color = 'srgb' THEN 'drop' ELSE defaults.hdr END),
           coalesce(darkroom.current_actor(), session_user)
      FROM darkroom.renditions AS x WHERE x.name = add_rendition.name
    RETURNING r.* INTO added;
    PERFORM darkroom.record_action('add_rendition', jsonb_build_object(
        'name', added.name, 'format', added.format, 'longest_side', added.longest_side, 'quality', added.quality,
        'metadata', added.metadata, 'color', added.color, 'hdr', added.hdr), jsonb_build_object('version', added.version));
    RETURN added;
END $$;

-- Stops writing `name`: its newest version is marked removed (renders already written keep
-- their records; prune deletes their files). Returns that version. The built-in display copy
-- stays: the dashboard shows it.
CREATE OR REPLACE FUNCTION darkroom.remove_rendition(name text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    removed int;
BEGIN
    IF remove_rendition.name = 'display' THEN
        RAISE EXCEPTION 'the display rendition cannot be removed: the dashboard shows it'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'redefine it with darkroom rendition add display ...';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('darkroom.renditions'), hashtext(remove_rendition.name));
    UPDATE darkroom.renditions AS r
       SET removed_at = now(), removed_by = coalesce(darkroom.current_actor(), session_user)
     WHERE (r.name, r.version) = (SELECT c.name, c.version FROM darkroom.current_renditions AS c
                                   WHERE c.name = remove_rendition.name)
    RETURNING r.version INTO removed;
    IF removed IS NULL THEN
        RAISE EXCEPTION 'there is no rendition %', quote_nullable(remove_rendition.name)
            USING ERRCODE = 'invalid_parameter_value', HINT = 'darkroom rendition list shows them';
    END IF;
    PERFORM darkroom.record_action('remove_rendition', jsonb_build_object('name', remove_rendition.name),
        jsonb_build_object('version', removed));
    RETURN removed;
END $$;

-- The renditions a record's render wrote, as the worker's rendered_with lists them
-- (RenderProvenance): [{"name", "version", "format", "path", "width", "height", "bytes"}, ...].
CREATE OR REPLACE FUNCTION darkroom.record_adjustment_renditions() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF jsonb_typeof(NEW.rendered_with -> 'renditions') IS DISTINCT FROM 'array' THEN
        RETURN NULL;
    END IF;
    INSERT INTO darkroom.adjustment_rendition_files (adjustment_id, name, version, format, path, width, height, bytes)
    SELECT NEW.id, f.name, f.version, f.format, f.path, f.width, f.height, f.bytes
      FROM jsonb_to_recordset(NEW.rendered_with -> 'renditions')
           AS f(name text, version int, format text, path text, width int, height int, bytes bigint);
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS adjustments_record_renditions ON darkroom.adjustments;
CREATE TRIGGER adjustments_record_renditions AFTER INSERT ON darkroom.adjustments
    FOR EACH ROW EXECUTE FUNCTION darkroom.record_adjustment_renditions();

-- Every version of every rendition, newest first within a name: `darkroom rendition list`.
CREATE OR REPLACE VIEW darkroom.rendition_versions AS
    SELECT r.name, r.version, r.format, r.longest_side, r.quality, r.metadata, r.color, r.hdr,
           r.added_by, r.added_at, r.removed_by, r.removed_at,
           EXISTS (SELECT 1 FROM darkroom.current_renditions AS c WHERE c.name = r.name AND c.version = r.version)
               AS current
      FROM darkroom.renditions AS r
     ORDER BY r.name, r.version DESC;

-- The renditions each record's render wrote, with whether each is still what a render writes
-- now ('current'), an older version ('stale') or a removed rendition ('removed'): the asset page.
CREATE OR REPLACE VIEW darkroom.adjustment_renditions AS
    SELECT a.asset_id, f.adjustment_id, f.name, f.version, f.format, f.path, f.width, f.height, f.bytes,
           CASE WHEN c.name IS NULL THEN 'removed' WHEN c.version > f.version THEN 'stale' ELSE 'current' END
               AS state
      FROM darkroom.adjustment_rendition_files AS f
      JOIN darkroom.adjustments AS a ON a.id = f.adjustment_id
      LEFT JOIN darkroom.current_renditions AS c ON c.name = f.name
     ORDER BY f.adjustment_id, f.name;

-- What a layer's record says about the renditions it wrote, the input of the rendition rule
-- (renditions_missing): the files it lists by name and version, whether its rendered_with lists
-- renditions at all, and its display size (a record from before renditions were data).
CREATE OR REPLACE FUNCTION darkroom.written_renditions(rendered_with jsonb, files jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object('files', coalesce(written_renditions.files, '{}'),
                              'listed', coalesce(written_renditions.rendered_with ? 'renditions', false),
                              'display_longest_side', written_renditions.rendered_with -> 'output' -> 'display_longest_side')
$$;

-- The current renditions a layer that wrote `written` lacks at their current version: what a
-- render of it would write now. A record from before renditions were data wrote the display
-- copy's first version when its display size is that version's. The one owner of this rule:
-- missing_renditions lists it for one record, stale_reasons counts it for a fingerprint.
CREATE OR REPLACE FUNCTION darkroom.renditions_missing(written jsonb)
RETURNS TABLE (name text, version int)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT c.name, c.version
      FROM darkroom.current_renditions AS c
     WHERE (renditions_missing.written -> 'files' ->> c.name)::int IS DISTINCT FROM c.version
       AND NOT (c.name = 'display' AND c.version = 1 AND NOT (renditions_missing.written ->> 'listed')::boolean
                AND coalesce((renditions_missing.written ->> 'display_longest_side')::int = c.longest_side, false))
     ORDER BY c.name
$$;

-- The current renditions record adjustment_id lacks (renditions_missing), each with the
-- stored path of the older version it wrote, which the new file replaces: what a renditions
-- job writes.
CREATE OR REPLACE FUNCTION darkroom.missing_renditions(adjustment_id bigint)
RETURNS TABLE (name text, version int, replaces text)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT m.name, m.version, f.path
      FROM darkroom.adjustments AS a
     CROSS JOIN LATERAL darkroom.renditions_missing(darkroom.written_renditions(a.rendered_with,
                (SELECT jsonb_object_agg(w.name, w.version) FROM darkroom.adjustment_rendition_files AS w
                  WHERE w.adjustment_id = a.id))) AS m
      LEFT JOIN darkroom.adjustment_rendition_files AS f ON f.adjustment_id = a.id AND f.name = m.name
     WHERE a.id = missing_renditions.adjustment_id
     ORDER BY m.name
$$;

-- Completes a renditions job: the renditions it wrote for the asset's top layer,
-- adjustment_id, which the asset must still show ([{"name", "version", "format", "path",
-- "width", "height", "bytes"}, ...], as rendered_with lists them), with the render's warnings
-- (kept in jobs.warnings, as complete_job keeps a layer's). Each replaces that record's file of
-- the same name. One row per stored path no record names any more (replaced, for the worker to
-- delete), or one with replaced NULL; status and loss in each, as complete_job says them. The
-- look does not change, so no history entry is written.
CREATE OR REPLACE FUNCTION darkroom.complete_renditions_job(
    job_id bigint, lease_token uuid, adjustment_id bigint, files jsonb, warnings jsonb DEFAULT '[]'
) RETURNS TABLE (status text, loss text, current_adjustment_id bigint, replaced text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    done record;
    old_paths text[];
BEGIN
    IF jsonb_typeof(files) IS DISTINCT FROM 'array' OR jsonb_array_length(files) = 0 THEN
        RAISE EXCEPTION 'a renditions job completes with an array of the files it wrote, got %',
            left(coalesce(files::text, 'NULL'), 200) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO done FROM darkroom.complete_job(
        complete_renditions_job.job_id, complete_renditions_job.lease_token, true, complete_renditions_job.adjustment_id,
        'none', format('wrote %s of adjustment %s''s renditions', jsonb_array_length(files), complete_renditions_job.adjustment_id),
        NULL, '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}');
    status := done.status;
    loss := done.loss;
    current_adjustment_id := done.current_adjustment_id;
    IF done.status <> 'done' THEN
        RETURN NEXT;
        RETURN;
    END IF;
    UPDATE darkroom.jobs AS j SET warnings = coalesce(complete_renditions_job.warnings, '[]')
     WHERE j.id = complete_renditions_job.job_id;
    WITH written AS (
        SELECT f.name FROM jsonb_to_recordset(files) AS f(name text)
    ), old AS (
        DELETE FROM darkroom.adjustment_rendition_files AS f
         USING written
         WHERE f.adjustment_id = complete_renditions_job.adjustment_id AND f.name = written.name
        RETURNING f.path
    )
    SELECT array_agg(old.path ORDER BY old.path) INTO old_paths FROM old;
    INSERT INTO darkroom.adjustment_rendition_files (adjustment_id, name, version, format, path, width, height, bytes)
    SELECT complete_renditions_job.adjustment_id, f.name, f.version, f.format, f.path, f.width, f.height, f.bytes
      FROM jsonb_to_recordset(files) AS f(name text, version int, format text, path text, width int, height int, bytes bigint);
    IF old_paths IS NULL THEN
        RETURN NEXT;
        RETURN;
    END IF;
    FOREACH replaced IN ARRAY old_paths LOOP
        RETURN NEXT;
    END LOOP;
END $$;
