// jpegint.h: the marker reader's methods, which the decoder wraps to record where skipped
// bytes lay (libjpeg-turbo's installed internal header; the struct is libjpeg 6b's).
#define JPEG_INTERNALS
#include "boundary.h"
#include "streams.h"

#include <stdlib.h>
#include <string.h>

// ---- error manager ----------------------------------------------------------------

static void record_and_jump(j_common_ptr cinfo, int from_warning) {
    dr_jpeg_error *error = (dr_jpeg_error *)cinfo->err;
    error->manager.format_message(cinfo, error->message);
    error->failed_on_warning = from_warning;
    error->message_code = error->manager.msg_code;
    error->failed_at_offset = dr_stream_offset(cinfo);
    longjmp(error->jump, 1);
}

static void on_error_exit(j_common_ptr cinfo) { record_and_jump(cinfo, 0); }

static void note_skipped(dr_jpeg_skipped *skipped, long long bytes, int marker, long long marker_offset) {
    if (skipped->runs == 0) {
        skipped->first_marker = marker;
        skipped->first_marker_offset = marker_offset;
    }
    skipped->runs++;
    skipped->bytes += bytes;
}

// Level < 0 is a warning: libjpeg would carry on, inventing what the data does not say.
// Trace messages (level >= 0) are dropped: they are debugging output.
// Two warnings are recorded instead, as facts for the caller: bytes skipped looking for a
// marker (what they cost depends on where they lay), and chunks of an ICC profile that do not
// fit together (libjpeg then returns no profile, and no pixel is touched).
// Trace messages (level >= 0) say which marker the marker reader met: every marker segment it
// reads traces one, and an RSTn outside a scan traces JTRC_PARMLESS_MARKER.
static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) {
        if (cinfo->is_decompressor) {
            dr_jpeg_decoder *decoder = (dr_jpeg_decoder *)cinfo;
            int marker = cinfo->err->msg_parm.i[0];
            decoder->after_restart_marker =
                cinfo->err->msg_code == JTRC_PARMLESS_MARKER && marker >= JPEG_RST0 && marker <= JPEG_RST0 + 7;
        }
        return;
    }
    if (cinfo->is_decompressor) {
        dr_jpeg_decoder *decoder = (dr_jpeg_decoder *)cinfo;  // cinfo is the first member
        int code = cinfo->err->msg_code;
        if (decoder->reading_icc) {
            if (decoder->icc_warning_code < 0) decoder->icc_warning_code = code;
            return;
        }
        if (code == JWRN_EXTRANEOUS_DATA) {
            // next_marker warns with the source just before the marker's 0xFF.
            note_skipped(decoder->seeking_restart        ? &decoder->skipped_before_restart
                         : decoder->after_restart_marker ? &decoder->skipped_after_scan_data
                                                         : &decoder->skipped_between_markers,
                         (long long)(unsigned int)cinfo->err->msg_parm.i[0], cinfo->err->msg_parm.i[1],
                         dr_stream_offset(cinfo));
            return;
        }
    }
    record_and_jump(cinfo, 1);
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void error_init(dr_jpeg_error *error) {
    jpeg_std_error(&error->manager);
    error->manager.error_exit = on_error_exit;
    error->manager.emit_message = on_emit_message;
    error->manager.output_message = on_output_message;
    error->failed_on_warning = 0;
    error->message_code = -1;
    error->stream_failed = 0;
    error->failed_at_offset = -1;
    error->message[0] = '\0';
}

static int fail_with(dr_jpeg_error *error, const char *message) {
    error->message_code = -1;
    strncpy(error->message, message, DR_JPEG_MESSAGE_CAPACITY - 1);
    error->message[DR_JPEG_MESSAGE_CAPACITY - 1] = '\0';
    return DR_JPEG_FAILED;
}

// Each guarded call sets the jump target in its own frame: setjmp must be called
// by the function that is still active when longjmp runs.
#define GUARD(error) if (setjmp((error)->jump) != 0) return DR_JPEG_FAILED

// ---- decoding -------------------------------------------------------------------

// The components of the scan whose header was read last.
static void note_scanned_components(dr_jpeg_decoder *decoder) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    for (int i = 0; i < cinfo->comps_in_scan && i < MAX_COMPS_IN_SCAN; i++) {
        jpeg_component_info *component = cinfo->cur_comp_info[i];
        if (component != NULL && component->component_index >= 0 && component->component_index < 32) {
            decoder->scanned_components |= 1u << component->component_index;
        }
    }
}

static void take_coverage(dr_jpeg_decoder *decoder, int input_complete) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    dr_jpeg_coverage *coverage = &decoder->coverage;
    coverage->components = cinfo->num_components;
    coverage->components_scanned = 0;
    for (int i = 0; i < cinfo->num_components && i < 32; i++) {
        if (decoder->scanned_components & (1u << i)) coverage->components_scanned++;
    }
    // coef_bits[c][k] is the successive-approximation bit coefficient k of component c has
    // reached: -1 never sent, 0 full precision. Allocated by start, freed by finish.
    coverage->coefficients_short = 0;
    if (cinfo->progressive_mode && cinfo->coef_bits != NULL) {
        for (int c = 0; c < cinfo->num_components; c++) {
            for (int k = 0; k < DCTSIZE2; k++) {
                if (cinfo->coef_bits[c][k] != 0) coverage->coefficients_short++;
            }
        }
    }
    coverage->arithmetic = cinfo->arith_code ? 1 : 0;
    coverage->input_complete = input_complete;
}

// Called before each step of input, so after every scan header and before its data.
static void on_progress(j_common_ptr cinfo) {
    dr_jpeg_decoder *decoder = (dr_jpeg_decoder *)cinfo;  // cinfo is the first member
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    note_scanned_components(decoder);
    if (decoder->max_scans > 0 && d->input_scan_number > decoder->max_scans) {
        snprintf(decoder->error.message, DR_JPEG_MESSAGE_CAPACITY,
                 "the file has more than %d scans; refusing it as a decompression bomb", decoder->max_scans);
        decoder->error.failed_on_warning = 0;
        decoder->error.message_code = -1;
        decoder->error.failed_at_offset = dr_stream_offset(cinfo);
        longjmp(decoder->error.jump, 1);
    }
}

static int next_source_byte(j_decompress_ptr cinfo) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (source->bytes_in_buffer == 0) (void)(*source->fill_input_buffer)(cinfo);  // never suspends
    source->bytes_in_buffer--;
    return *source->next_input_byte++;
}

// After a scan whose entropy decoder stopped before the next marker: finds that marker as
// libjpeg's next_marker would, counting every byte on the way (fill 0xFFs before the marker
// excepted), and leaves it in unread_marker for read_markers. Whatever libjpeg itself skips
// afterwards then follows a marker segment.
static void seek_marker_after_scan_data(dr_jpeg_decoder *decoder) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    long long skipped = 0;
    for (;;) {
        long long run_start = dr_stream_offset((j_common_ptr)cinfo);
        int c = next_source_byte(cinfo);
        if (c != 0xFF) {
            skipped++;
            continue;
        }
        int fill = 1;
        do {
            c = next_source_byte(cinfo);
            fill++;
        } while (c == 0xFF);
        if (c == 0) {  // a stuffed 0xFF: still entropy-coded data
            skipped += fill;
            continue;
        }
        if (skipped > 0) note_skipped(&decoder->skipped_after_scan_data, skipped, c, run_start);
        cinfo->unread_marker = c;
        return;
    }
}

// Every call after the first scan's header follows a scan's entropy-coded data.
static int read_markers_recording(j_decompress_ptr cinfo) {
    dr_jpeg_decoder *decoder = (dr_jpeg_decoder *)cinfo;
    if (cinfo->input_scan_number > 0 && cinfo->unread_marker == 0) seek_marker_after_scan_data(decoder);
    return decoder->libjpeg_read_markers(cinfo);
}

static boolean read_restart_marker_recording(j_decompress_ptr cinfo) {
    dr_jpeg_decoder *decoder = (dr_jpeg_decoder *)cinfo;
    decoder->seeking_restart = 1;
    boolean found = decoder->libjpeg_read_restart_marker(cinfo);
    decoder->seeking_restart = 0;
    return found;
}

dr_jpeg_decoder *dr_decoder_create(int max_scans) {
    dr_jpeg_decoder *decoder = calloc(1, sizeof(dr_jpeg_decoder));
    if (decoder == NULL) return NULL;
    error_init(&decoder->error);
    decoder->cinfo.err = &decoder->error.manager;
    decoder->max_scans = max_scans;
    decoder->progress.progress_monitor = on_progress;
    if (setjmp(decoder->error.jump) != 0) {  // jpeg_create_* fails only on OOM
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->cinfo.progress = &decoder->progress;  // after create, which zeroes the struct
    decoder->icc_warning_code = -1;
    decoder->skipped_between_markers.first_marker_offset = -1;
    decoder->skipped_after_scan_data.first_marker_offset = -1;
    decoder->skipped_before_restart.first_marker_offset = -1;
    // The marker reader lives as long as the decompressor; its methods are never reset.
    decoder->libjpeg_read_markers = decoder->cinfo.marker->read_markers;
    decoder->cinfo.marker->read_markers = read_markers_recording;
    decoder->libjpeg_read_restart_marker = decoder->cinfo.marker->read_restart_marker;
    decoder->cinfo.marker->read_restart_marker = read_restart_marker_recording;
    return decoder;
}

void dr_decoder_destroy(dr_jpeg_decoder *decoder) {
    if (decoder == NULL) return;
    jpeg_destroy_decompress(&decoder->cinfo);  // never calls error_exit nor the source
    dr_source_release(&decoder->source);
    free(decoder);
}

int dr_decoder_open(dr_jpeg_decoder *decoder, dr_read_callback read, void *context, size_t buffer_size) {
    if (decoder->opened) return fail_with(&decoder->error, "the decoder already has a source");
    if (dr_source_install(&decoder->cinfo, &decoder->source, read, context, buffer_size) != 0) {
        return fail_with(&decoder->error, "out of memory for the input buffer");
    }
    decoder->opened = 1;
    GUARD(&decoder->error);
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&decoder->cinfo, TRUE);
    note_scanned_components(decoder);  // the first scan's header ends the header
    return DR_JPEG_OK;
}

int dr_decoder_start(dr_jpeg_decoder *decoder, J_COLOR_SPACE out_color_space,
                     unsigned int scale_num, int fast_upsample) {
    GUARD(&decoder->error);
    decoder->cinfo.out_color_space = out_color_space;
    decoder->cinfo.scale_num = scale_num;
    decoder->cinfo.scale_denom = 8;
    decoder->cinfo.do_fancy_upsampling = fast_upsample ? FALSE : TRUE;
    decoder->cinfo.dct_method = JDCT_ISLOW;  // exact and SIMD-accelerated in libjpeg-turbo
    jpeg_start_decompress(&decoder->cinfo);
    decoder->started = 1;
    take_coverage(decoder, jpeg_input_complete(&decoder->cinfo) ? 1 : 0);
    return DR_JPEG_OK;
}

int dr_decoder_read(dr_jpeg_decoder *decoder, JSAMPARRAY rows, JDIMENSION max_rows,
                    JDIMENSION *rows_read) {
    *rows_read = 0;
    GUARD(&decoder->error);
    JDIMENSION total = 0;
    while (total < max_rows && decoder->cinfo.output_scanline < decoder->cinfo.output_height) {
        JDIMENSION got = jpeg_read_scanlines(&decoder->cinfo, rows + total, max_rows - total);
        if (got == 0) return fail_with(&decoder->error, "the decoder produced no rows (suspended source)");
        total += got;
        *rows_read = total;
    }
    return DR_JPEG_OK;
}

int dr_decoder_skip(dr_jpeg_decoder *decoder, JDIMENSION rows, JDIMENSION *rows_skipped) {
    *rows_skipped = 0;
    GUARD(&decoder->error);
    // Never onto the bottom: libjpeg would mark the input finished without reading it, and
    // neither damage below nor the end of the file would be seen. Finish reads the last row.
    JDIMENSION left = decoder->cinfo.output_height - decoder->cinfo.output_scanline;
    if (rows >= left) rows = left > 0 ? left - 1 : 0;
    if (rows > 0) *rows_skipped = jpeg_skip_scanlines(&decoder->cinfo, rows);
    return DR_JPEG_OK;
}

int dr_decoder_finish(dr_jpeg_decoder *decoder) {
    GUARD(&decoder->error);
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (cinfo->output_scanline < cinfo->output_height) {
        // Skipping to the bottom would not read the data; skipping all but the last row
        // entropy-decodes the rows in between (without their IDCT), and the last row is read.
        JDIMENSION left = cinfo->output_height - cinfo->output_scanline;
        if (left > 1) jpeg_skip_scanlines(cinfo, left - 1);
        JSAMPARRAY row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                     cinfo->output_width * (JDIMENSION)cinfo->output_components, 1);
        while (cinfo->output_scanline < cinfo->output_height) {
            if (jpeg_read_scanlines(cinfo, row, 1) == 0) {
                return fail_with(&decoder->error, "the decoder produced no rows (suspended source)");
            }
        }
    }
    take_coverage(decoder, 0);  // before finish frees the progression table
    jpeg_finish_decompress(cinfo);
    decoder->coverage.input_complete = 1;
    decoder->started = 0;
    decoder->eoi_end_offset = dr_stream_offset((j_common_ptr)cinfo);
    decoder->trailing_bytes = dr_source_drain(cinfo);
    return DR_JPEG_OK;
}

int dr_decoder_icc_profile(dr_jpeg_decoder *decoder, JOCTET **profile, unsigned int *length) {
    *profile = NULL;
    *length = 0;
    decoder->reading_icc = 0;
    GUARD(&decoder->error);
    decoder->reading_icc = 1;  // its warnings are recorded (on_emit_message), and it returns FALSE
    boolean found = jpeg_read_icc_profile(&decoder->cinfo, profile, length);
    decoder->reading_icc = 0;
    if (!found) {
        free(*profile);
        *profile = NULL;
        *length = 0;
    }
    return DR_JPEG_OK;
}

// ---- encoding -------------------------------------------------------------------

dr_jpeg_encoder *dr_encoder_create(void) {
    dr_jpeg_encoder *encoder = calloc(1, sizeof(dr_jpeg_encoder));
    if (encoder == NULL) return NULL;
    error_init(&encoder->error);
    encoder->cinfo.err = &encoder->error.manager;
    if (setjmp(encoder->error.jump) != 0) {
        free(encoder);
        return NULL;
    }
    jpeg_create_compress(&encoder->cinfo);
    return encoder;
}

void dr_encoder_destroy(dr_jpeg_encoder *encoder) {
    if (encoder == NULL) return;
    jpeg_destroy_compress(&encoder->cinfo);  // never calls the destination
    dr_destination_release(&encoder->destination);
    free(encoder);
}

int dr_encoder_open(dr_jpeg_encoder *encoder, dr_write_callback write, void *context, size_t buffer_size) {
    if (encoder->opened) return fail_with(&encoder->error, "the encoder already has a destination");
    if (dr_destination_install(&encoder->cinfo, &encoder->destination, write, context, buffer_size) != 0) {
        return fail_with(&encoder->error, "out of memory for the output buffer");
    }
    encoder->opened = 1;
    return DR_JPEG_OK;
}

int dr_encoder_start(dr_jpeg_encoder *encoder, JDIMENSION width, JDIMENSION height,
                     int quality, int full_chroma, int optimize_coding, int progressive, int colour) {
    GUARD(&encoder->error);
    j_compress_ptr cinfo = &encoder->cinfo;
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = colour == DR_ENCODE_RGB ? 3 : colour == DR_ENCODE_GREY ? 1 : 4;
    cinfo->in_color_space = colour == DR_ENCODE_RGB ? JCS_RGB : colour == DR_ENCODE_GREY ? JCS_GRAYSCALE : JCS_CMYK;
    jpeg_set_defaults(cinfo);
    // libjpeg writes an Adobe APP14 marker for both, with the transform flag 0 (CMYK) or 2 (YCCK).
    if (colour == DR_ENCODE_YCCK) jpeg_set_colorspace(cinfo, JCS_YCCK);
    jpeg_set_quality(cinfo, quality, TRUE);
    cinfo->dct_method = JDCT_ISLOW;
    cinfo->optimize_coding = optimize_coding ? TRUE : FALSE;
    if (colour == DR_ENCODE_RGB) {
        int luma = full_chroma ? 1 : 2;
        cinfo->comp_info[0].h_samp_factor = luma;
        cinfo->comp_info[0].v_samp_factor = luma;
        cinfo->comp_info[1].h_samp_factor = 1;
        cinfo->comp_info[1].v_samp_factor = 1;
        cinfo->comp_info[2].h_samp_factor = 1;
        cinfo->comp_info[2].v_samp_factor = 1;
    }
    if (progressive) jpeg_simple_progression(cinfo);
    jpeg_start_compress(cinfo, TRUE);
    encoder->started = 1;
    return DR_JPEG_OK;
}

int dr_encoder_write_marker(dr_jpeg_encoder *encoder, int marker, const JOCTET *data,
                            unsigned int length) {
    GUARD(&encoder->error);
    jpeg_write_marker(&encoder->cinfo, marker, data, length);
    return DR_JPEG_OK;
}

int dr_encoder_write_icc_profile(dr_jpeg_encoder *encoder, const JOCTET *data,
                                 unsigned int length) {
    GUARD(&encoder->error);
    jpeg_write_icc_profile(&encoder->cinfo, data, length);
    return DR_JPEG_OK;
}

int dr_encoder_write(dr_jpeg_encoder *encoder, JSAMPARRAY rows, JDIMENSION count,
                     JDIMENSION *rows_written) {
    *rows_written = 0;
    GUARD(&encoder->error);
    JDIMENSION total = 0;
    while (total < count) {
        JDIMENSION wrote = jpeg_write_scanlines(&encoder->cinfo, rows + total, count - total);
        if (wrote == 0) return fail_with(&encoder->error, "the encoder accepted no rows");
        total += wrote;
        *rows_written = total;
    }
    return DR_JPEG_OK;
}

int dr_encoder_finish(dr_jpeg_encoder *encoder) {
    GUARD(&encoder->error);
    jpeg_finish_compress(&encoder->cinfo);  // term_destination hands over the last bytes
    encoder->started = 0;
    return DR_JPEG_OK;
}
