#include "streams.h"

#include <jerror.h>  // ERREXIT and the message codes libjpeg's own sources use
#include <stdlib.h>
#include <string.h>

// A callback failed: record it and jump back into the guarded dr_* call that is running.
// Only C frames lie between here and its setjmp: the callback itself has already returned.
static void stream_failed(j_common_ptr cinfo, const char *what, long long offset) {
    dr_jpeg_error *error = (dr_jpeg_error *)cinfo->err;
    strncpy(error->message, what, DR_JPEG_MESSAGE_CAPACITY - 1);
    error->message[DR_JPEG_MESSAGE_CAPACITY - 1] = '\0';
    error->stream_failed = 1;
    error->failed_on_warning = 0;
    error->failed_at_offset = offset;
    longjmp(error->jump, 1);
}

// ---- source ---------------------------------------------------------------------

static void source_init(j_decompress_ptr cinfo) {
    dr_jpeg_source *source = (dr_jpeg_source *)cinfo->src;
    source->start_of_file = 1;
}

// Blocks in the callback until bytes arrive: the decoder never suspends. At the end of the
// stream it supplies an EOI marker, as libjpeg's stdio source does, but records the end
// instead of warning: whether the image was complete by then is judged from what the decoder
// did (see dr_jpeg_coverage in boundary.h).
static boolean source_fill(j_decompress_ptr cinfo) {
    dr_jpeg_source *source = (dr_jpeg_source *)cinfo->src;
    long got = source->read(source->context, source->buffer, source->capacity);
    if (got < 0 || (size_t)got > source->capacity) {
        stream_failed((j_common_ptr)cinfo, "reading the input failed", source->delivered);
    }
    if (got == 0) {
        // Everything delivered was consumed: the exact offset of the end, which the entropy
        // decoder's stale copy of bytes_in_buffer would not give.
        source->ended = 1;
        if (source->start_of_file) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        source->buffer[0] = (JOCTET)0xFF;
        source->buffer[1] = (JOCTET)JPEG_EOI;
        got = 2;
    } else {
        source->delivered += got;
    }
    source->manager.next_input_byte = source->buffer;
    source->manager.bytes_in_buffer = (size_t)got;
    source->start_of_file = 0;
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *manager = cinfo->src;
    if (count <= 0) return;
    while (count > (long)manager->bytes_in_buffer) {
        count -= (long)manager->bytes_in_buffer;
        (void)source_fill(cinfo);  // never suspends
    }
    manager->next_input_byte += (size_t)count;
    manager->bytes_in_buffer -= (size_t)count;
}

static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

int dr_source_install(j_decompress_ptr cinfo, dr_jpeg_source *source, dr_read_callback read,
                      void *context, size_t capacity) {
    if (capacity < 2) capacity = 2;  // room for the fake EOI
    JOCTET *buffer = malloc(capacity);
    if (buffer == NULL) return -1;
    memset(source, 0, sizeof(*source));
    source->read = read;
    source->context = context;
    source->buffer = buffer;
    source->capacity = capacity;
    source->manager.init_source = source_init;
    source->manager.fill_input_buffer = source_fill;
    source->manager.skip_input_data = source_skip;
    source->manager.resync_to_restart = jpeg_resync_to_restart;
    source->manager.term_source = source_term;
    cinfo->src = &source->manager;
    return 0;
}

long long dr_source_drain(j_decompress_ptr cinfo) {
    dr_jpeg_source *source = (dr_jpeg_source *)cinfo->src;
    if (source->ended) return 0;  // the buffer holds the supplied EOI, not input
    long long count = (long long)source->manager.bytes_in_buffer;
    source->manager.bytes_in_buffer = 0;
    for (;;) {
        long got = source->read(source->context, source->buffer, source->capacity);
        if (got < 0 || (size_t)got > source->capacity) {
            stream_failed((j_common_ptr)cinfo, "reading the input failed", source->delivered);
        }
        if (got == 0) return count;
        source->delivered += got;
        count += got;
    }
}

void dr_source_release(dr_jpeg_source *source) {
    free(source->buffer);
    source->buffer = NULL;
}

// ---- destination ----------------------------------------------------------------

static void deliver(j_compress_ptr cinfo, dr_jpeg_destination *destination, size_t count) {
    if (destination->write(destination->context, destination->buffer, count) != 0) {
        stream_failed((j_common_ptr)cinfo, "writing the output failed", destination->written);
    }
    destination->written += (long long)count;
    destination->manager.next_output_byte = destination->buffer;
    destination->manager.free_in_buffer = destination->capacity;
}

static void destination_init(j_compress_ptr cinfo) {
    dr_jpeg_destination *destination = (dr_jpeg_destination *)cinfo->dest;
    destination->manager.next_output_byte = destination->buffer;
    destination->manager.free_in_buffer = destination->capacity;
}

// libjpeg calls this with the whole buffer full (free_in_buffer is stale then).
static boolean destination_empty(j_compress_ptr cinfo) {
    dr_jpeg_destination *destination = (dr_jpeg_destination *)cinfo->dest;
    deliver(cinfo, destination, destination->capacity);
    return TRUE;
}

static void destination_term(j_compress_ptr cinfo) {
    dr_jpeg_destination *destination = (dr_jpeg_destination *)cinfo->dest;
    size_t count = destination->capacity - destination->manager.free_in_buffer;
    if (count > 0) deliver(cinfo, destination, count);
}

int dr_destination_install(j_compress_ptr cinfo, dr_jpeg_destination *destination,
                           dr_write_callback write, void *context, size_t capacity) {
    if (capacity < 1) capacity = 1;
    JOCTET *buffer = malloc(capacity);
    if (buffer == NULL) return -1;
    memset(destination, 0, sizeof(*destination));
    destination->write = write;
    destination->context = context;
    destination->buffer = buffer;
    destination->capacity = capacity;
    destination->manager.init_destination = destination_init;
    destination->manager.empty_output_buffer = destination_empty;
    destination->manager.term_destination = destination_term;
    cinfo->dest = &destination->manager;
    return 0;
}

void dr_destination_release(dr_jpeg_destination *destination) {
    free(destination->buffer);
    destination->buffer = NULL;
}

// ---- offsets --------------------------------------------------------------------

long long dr_stream_offset(j_common_ptr cinfo) {
    if (cinfo->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)cinfo;
        if (d->src == NULL) return -1;
        dr_jpeg_source *source = (dr_jpeg_source *)d->src;
        // After the end of the stream the buffer holds the fake EOI, which is not input.
        if (source->ended) return source->delivered;
        return source->delivered - (long long)d->src->bytes_in_buffer;
    }
    j_compress_ptr c = (j_compress_ptr)cinfo;
    if (c->dest == NULL) return -1;
    dr_jpeg_destination *destination = (dr_jpeg_destination *)c->dest;
    return destination->written + (long long)(destination->capacity - c->dest->free_in_buffer);
}
