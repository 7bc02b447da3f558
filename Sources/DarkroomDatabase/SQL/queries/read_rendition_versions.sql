SELECT * FROM darkroom.rendition_versions
