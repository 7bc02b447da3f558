#ifndef DARKROOM_CZLIB_SHIM_H
#define DARKROOM_CZLIB_SHIM_H
#include <zlib.h>
// inflateInit2 is a macro Swift cannot import: the same call, as a function.
static inline int dr_inflate_init_raw(z_stream *stream) {
    // Negative window bits: raw DEFLATE (no zlib header or checksum), 32 KiB window.
    return inflateInit2(stream, -15);
}
// deflateInit2 likewise: raw DEFLATE at `level`, default memory and strategy.
static inline int dr_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
#endif
