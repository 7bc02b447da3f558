#ifndef DARKROOM_JPEG_BOUNDARY_H
#define DARKROOM_JPEG_BOUNDARY_H

// libjpeg reports fatal errors through error_exit, which must not return. The default
// one calls exit(); ours longjmps back into the dr_* call that was running, which then
// returns DR_JPEG_FAILED with the library's message. Every libjpeg call that can fail
// goes through a dr_* function below, so no longjmp ever crosses a Swift frame.
//
// Warnings (for example "Corrupt JPEG data: premature end of data segment") are errors
// too when `warnings_are_errors` is set: libjpeg would otherwise hand back grey pixels.

#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <jpeglib.h>

#define DR_JPEG_OK 0
#define DR_JPEG_FAILED -1
#define DR_JPEG_MESSAGE_CAPACITY 256

typedef struct dr_jpeg_error {
    struct jpeg_error_mgr manager;      // must stay first: libjpeg casts to it
    jmp_buf jump;
    int warnings_are_errors;
    int failed_on_warning;
    long failed_at_offset;              // byte offset in the file when known, else -1
    char message[DR_JPEG_MESSAGE_CAPACITY];
    FILE *file;                         // for byte offsets in messages
} dr_jpeg_error;

typedef struct dr_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    dr_jpeg_error error;
    struct jpeg_progress_mgr progress;
    int max_scans;                      // 0: no limit
    FILE *file;
    int started;
} dr_jpeg_decoder;

typedef struct dr_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    dr_jpeg_error error;
    FILE *file;
    int started;
} dr_jpeg_encoder;

// ---- decoding -------------------------------------------------------------------
// Create returns NULL only when out of memory. Destroy closes the file and frees all.
// max_scans > 0 refuses files with more scans (a progressive file can carry thousands,
// each a full pass over the coefficients: a cheap way to make a decoder spin).
dr_jpeg_decoder *dr_decoder_create(int warnings_are_errors, int max_scans);
void dr_decoder_destroy(dr_jpeg_decoder *decoder);
// Opens `path` and reads the header, keeping APP1 (EXIF, XMP) and APP2 (ICC) markers.
// On failure, errno is kept in *os_error (0 when the failure is libjpeg's).
int dr_decoder_open(dr_jpeg_decoder *decoder, const char *path, int *os_error);
// Sets the output colour space and DCT scaling (scale_num/8), then starts decompression.
int dr_decoder_start(dr_jpeg_decoder *decoder, J_COLOR_SPACE out_color_space,
                     unsigned int scale_num, int fast_upsample);
int dr_decoder_read(dr_jpeg_decoder *decoder, JSAMPARRAY rows, JDIMENSION max_rows,
                    JDIMENSION *rows_read);
int dr_decoder_skip(dr_jpeg_decoder *decoder, JDIMENSION rows, JDIMENSION *rows_skipped);
int dr_decoder_finish(dr_jpeg_decoder *decoder);
// The ICC profile assembled from APP2 chunks, malloc'd (free with free()); NULL if none.
int dr_decoder_icc_profile(dr_jpeg_decoder *decoder, JOCTET **profile, unsigned int *length);

// ---- encoding -------------------------------------------------------------------
dr_jpeg_encoder *dr_encoder_create(void);
void dr_encoder_destroy(dr_jpeg_encoder *encoder);
int dr_encoder_open(dr_jpeg_encoder *encoder, const char *path, int *os_error);
// 3-component RGB input; quality 1..100; chroma 4:4:4 when full_chroma, else 4:2:0;
// progressive uses libjpeg's standard scan script.
int dr_encoder_start(dr_jpeg_encoder *encoder, JDIMENSION width, JDIMENSION height,
                     int quality, int full_chroma, int optimize_coding, int progressive);
int dr_encoder_write_marker(dr_jpeg_encoder *encoder, int marker, const JOCTET *data,
                            unsigned int length);
int dr_encoder_write_icc_profile(dr_jpeg_encoder *encoder, const JOCTET *data,
                                 unsigned int length);
int dr_encoder_write(dr_jpeg_encoder *encoder, JSAMPARRAY rows, JDIMENSION count,
                     JDIMENSION *rows_written);
// Finishes the stream, flushes, fsyncs (when asked) and closes the file.
int dr_encoder_finish(dr_jpeg_encoder *encoder, int sync, int *os_error);

#endif
