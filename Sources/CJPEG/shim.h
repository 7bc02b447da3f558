#ifndef DARKROOM_CJPEG_SHIM_H
#define DARKROOM_CJPEG_SHIM_H
// jpeglib.h needs stdio's FILE and size_t declared first.
#include <stdio.h>
#include <stddef.h>
#include <jpeglib.h>
// The message codes (JWRN_*, JERR_*): decisions read these, never the message text.
#include <jerror.h>
#endif
