#ifndef DARKROOM_JPEG_STREAMS_H
#define DARKROOM_JPEG_STREAMS_H

// libjpeg's source and destination managers over dr_read_callback / dr_write_callback.
// Private to the boundary: only boundary.c installs them, inside guarded calls.

#include "boundary.h"

// Allocates the buffer; returns 0, or -1 when out of memory (nothing installed).
int dr_source_install(j_decompress_ptr cinfo, dr_jpeg_source *source, dr_read_callback read,
                      void *context, size_t capacity);
int dr_destination_install(j_compress_ptr cinfo, dr_jpeg_destination *destination,
                           dr_write_callback write, void *context, size_t capacity);
void dr_source_release(dr_jpeg_source *source);
// After the EOI marker: reads the stream to its end and returns how many bytes followed the
// marker (0 when the source had run dry before one). Jumps like any failed read.
long long dr_source_drain(j_decompress_ptr cinfo);
void dr_destination_release(dr_jpeg_destination *destination);

// The stream offset libjpeg has reached: the next unread input byte, or the next output
// byte to be handed over; -1 before a stream is installed. Inside entropy-coded data the
// input offset can be a few bytes early (the decoder keeps its own copy of the position).
long long dr_stream_offset(j_common_ptr cinfo);

#endif
