#include "boundary.h"
#include "streams.h"

#include <stdlib.h>
#include <string.h>

// ---- error manager ----------------------------------------------------------------

static void record_and_jump(j_common_ptr cinfo, int from_warning) {
    dr_jpeg_error *error = (dr_jpeg_error *)cinfo->err;
    error->manager.format_message(cinfo, error->message);
    error->failed_on_warning = from_warning;
    error->failed_at_offset = dr_stream_offset(cinfo);
    longjmp(error->jump, 1);
}

static void on_error_exit(j_common_ptr cinfo) { record_and_jump(cinfo, 0); }

static void on_emit_message(j_common_ptr cinfo, int level) {
    dr_jpeg_error *error = (dr_jpeg_error *)cinfo->err;
    if (level < 0) {  // a warning: the data is damaged but libjpeg would carry on
        if (error->warnings_are_errors) record_and_jump(cinfo, 1);
        error->manager.num_warnings++;
    }
    // Trace messages (level >= 0) are dropped: they are debugging output.
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void error_init(dr_jpeg_error *error, int warnings_are_errors) {
    jpeg_std_error(&error->manager);
    error->manager.error_exit = on_error_exit;
    error->manager.emit_message = on_emit_message;
    error->manager.output_message = on_output_message;
    error->warnings_are_errors = warnings_are_errors;
    error->failed_on_warning = 0;
    error->stream_failed = 0;
    error->failed_at_offset = -1;
    error->message[0] = '\0';
}

static int fail_with(dr_jpeg_error *error, const char *message) {
    strncpy(error->message, message, DR_JPEG_MESSAGE_CAPACITY - 1);
    error->message[DR_JPEG_MESSAGE_CAPACITY - 1] = '\0';
    return DR_JPEG_FAILED;
}

// Each guarded call sets the jump target in its own frame: setjmp must be called
// by the function that is still active when longjmp runs.
#define GUARD(error) if (setjmp((error)->jump) != 0) return DR_JPEG_FAILED

// ---- decoding -------------------------------------------------------------------

static void on_progress(j_common_ptr cinfo) {
    dr_jpeg_decoder *decoder = (dr_jpeg_decoder *)cinfo;  // cinfo is the first member
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (decoder->max_scans > 0 && d->input_scan_number > decoder->max_scans) {
        snprintf(decoder->error.message, DR_JPEG_MESSAGE_CAPACITY,
                 "the file has more than %d scans; refusing it as a decompression bomb", decoder->max_scans);
        decoder->error.failed_on_warning = 0;
        decoder->error.failed_at_offset = dr_stream_offset(cinfo);
        longjmp(decoder->error.jump, 1);
    }
}

dr_jpeg_decoder *dr_decoder_create(int warnings_are_errors, int max_scans) {
    dr_jpeg_decoder *decoder = calloc(1, sizeof(dr_jpeg_decoder));
    if (decoder == NULL) return NULL;
    error_init(&decoder->error, warnings_are_errors);
    decoder->cinfo.err = &decoder->error.manager;
    decoder->max_scans = max_scans;
    decoder->progress.progress_monitor = on_progress;
    if (setjmp(decoder->error.jump) != 0) {  // jpeg_create_* fails only on OOM
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->cinfo.progress = &decoder->progress;  // after create, which zeroes the struct
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
    *rows_skipped = jpeg_skip_scanlines(&decoder->cinfo, rows);
    return DR_JPEG_OK;
}

int dr_decoder_finish(dr_jpeg_decoder *decoder) {
    GUARD(&decoder->error);
    jpeg_finish_decompress(&decoder->cinfo);
    decoder->started = 0;
    return DR_JPEG_OK;
}

int dr_decoder_icc_profile(dr_jpeg_decoder *decoder, JOCTET **profile, unsigned int *length) {
    *profile = NULL;
    *length = 0;
    GUARD(&decoder->error);
    if (!jpeg_read_icc_profile(&decoder->cinfo, profile, length)) {
        *profile = NULL;
        *length = 0;
    }
    return DR_JPEG_OK;
}

// ---- encoding -------------------------------------------------------------------

dr_jpeg_encoder *dr_encoder_create(void) {
    dr_jpeg_encoder *encoder = calloc(1, sizeof(dr_jpeg_encoder));
    if (encoder == NULL) return NULL;
    error_init(&encoder->error, 1);
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
                     int quality, int full_chroma, int optimize_coding, int progressive) {
    GUARD(&encoder->error);
    j_compress_ptr cinfo = &encoder->cinfo;
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = 3;
    cinfo->in_color_space = JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    cinfo->dct_method = JDCT_ISLOW;
    cinfo->optimize_coding = optimize_coding ? TRUE : FALSE;
    int luma = full_chroma ? 1 : 2;
    cinfo->comp_info[0].h_samp_factor = luma;
    cinfo->comp_info[0].v_samp_factor = luma;
    cinfo->comp_info[1].h_samp_factor = 1;
    cinfo->comp_info[1].v_samp_factor = 1;
    cinfo->comp_info[2].h_samp_factor = 1;
    cinfo->comp_info[2].v_samp_factor = 1;
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
