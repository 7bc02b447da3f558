#ifndef DARKROOM_JPEG_BOUNDARY_H
#define DARKROOM_JPEG_BOUNDARY_H

// libjpeg reports fatal errors through error_exit, which must not return. The default
// one calls exit(); ours longjmps back into the dr_* call that was running, which then
// returns DR_JPEG_FAILED with the library's message. Every libjpeg call that can fail
// goes through a dr_* function below, so no longjmp ever crosses a Swift frame.
//
// Warnings (for example "Corrupt JPEG data: premature end of data segment") are errors too:
// libjpeg warns when it is about to invent pixels (grey blocks, zeroed coefficients), and
// darkroom never hands those back. The call fails with `failed_on_warning` set and libjpeg's
// message code in `message_code`, so the caller can tell a cut scan from corrupt data
// without reading the text.
//
// A source that runs dry before the EOI marker is not a warning here: the source records
// where it ended (`dr_jpeg_source.ended`, `.delivered`) and supplies an EOI, and the caller
// judges afterwards whether the image was complete by then (every scan present, see
// dr_jpeg_coverage; a cut inside a scan fails on libjpeg's own warning first).
//
// Bytes come and go through callbacks, not FILE*: the decoder's source manager fills its
// buffer by calling `dr_read_callback`, the encoder's destination manager empties its buffer
// by calling `dr_write_callback`. Both are called only from inside a dr_* call, and they
// return normally (a Swift callback keeps its error in its context and returns -1); the
// boundary then jumps, in C frames only, and the dr_* call fails with `stream_failed` set.

#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <jpeglib.h>

#define DR_JPEG_OK 0
#define DR_JPEG_FAILED -1
#define DR_JPEG_MESSAGE_CAPACITY 256

// Fills `buffer` with up to `capacity` bytes; returns how many (0 at the end of the
// stream), or -1 when reading failed (the callback keeps the reason).
typedef long (*dr_read_callback)(void *context, JOCTET *buffer, size_t capacity);
// Takes all `count` bytes; returns 0, or -1 when writing failed (the callback keeps the reason).
typedef int (*dr_write_callback)(void *context, const JOCTET *bytes, size_t count);

typedef struct dr_jpeg_error {
    struct jpeg_error_mgr manager;      // must stay first: libjpeg casts to it
    jmp_buf jump;
    int failed_on_warning;
    int message_code;                   // libjpeg's J_MESSAGE_CODE of the failure; -1 when the boundary failed the call
    int stream_failed;                  // the read or write callback failed
    long long failed_at_offset;         // byte offset in the stream when known, else -1
    char message[DR_JPEG_MESSAGE_CAPACITY];
} dr_jpeg_error;

typedef struct dr_jpeg_source {
    struct jpeg_source_mgr manager;     // must stay first: libjpeg casts to it
    dr_read_callback read;
    void *context;
    JOCTET *buffer;                     // owned: malloc'd by open, freed by destroy
    size_t capacity;
    long long delivered;                // bytes the callback returned so far
    int start_of_file;
    int ended;                          // the callback said end of stream before an EOI marker was
                                        // read: the buffer has held a supplied EOI since
} dr_jpeg_source;

typedef struct dr_jpeg_destination {
    struct jpeg_destination_mgr manager;  // must stay first: libjpeg casts to it
    dr_write_callback write;
    void *context;
    JOCTET *buffer;                     // owned: malloc'd by open, freed by destroy
    size_t capacity;
    long long written;                  // bytes the callback took so far
} dr_jpeg_destination;

// What the scans read so far delivered, for judging a file that ended without its EOI
// marker: complete when every component was scanned and, for a progressive file, every
// coefficient of every component reached full precision (its last successive-approximation
// bit). An encoder that ends with EOI may legitimately send less; a file that merely stops
// cannot be told from a cut one otherwise.
typedef struct dr_jpeg_coverage {
    int components;                     // in the frame
    int components_scanned;             // of those, how many appeared in at least one scan
    int coefficients_short;             // progressive: (component, coefficient) pairs never sent
                                        // or not refined to full precision; 0 otherwise
    int arithmetic;                     // arithmetic-coded: hitting the end inside a scan is legal
                                        // there, so a cut scan cannot be told from a complete one
    int input_complete;                 // when taken, the decoder had read up to an EOI (the file's
                                        // or the supplied one): true after start for multi-scan files
} dr_jpeg_coverage;

// Bytes libjpeg skipped where a marker should have begun (its JWRN_EXTRANEOUS_DATA warning),
// summed by where they lay. The boundary records them instead of failing the call, and the
// caller judges (JPEGEnding): between marker segments no pixel depends on them; right after a
// scan's entropy-coded data, or where a restart marker was due, they cannot be told from corrupt
// scan data.
typedef struct dr_jpeg_skipped {
    int runs;                           // separate runs of skipped bytes
    long long bytes;                    // in all
    int first_marker;                   // the marker code found after the first run (0xDB: DQT)
    long long first_marker_offset;      // where that marker starts (its 0xFF); -1 when unknown
} dr_jpeg_skipped;

typedef struct dr_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    dr_jpeg_error error;
    struct jpeg_progress_mgr progress;
    dr_jpeg_source source;
    int max_scans;                      // 0: no limit
    unsigned int scanned_components;    // bit i: component i appeared in a scan so far
    long long eoi_end_offset;           // set by finish: the offset just past the EOI marker read
    long long trailing_bytes;           // set by finish: bytes after that EOI marker
    dr_jpeg_coverage coverage;          // taken by start (final then for a multi-scan file) and by finish
    // Where skipped bytes lay. Between markers: after the SOI or a marker segment (libjpeg's
    // own count). After scan data: from where a scan's entropy decoder stopped to the next
    // marker (counted by the boundary, which takes that search from libjpeg so the two never
    // mix), or after an RSTn the marker reader passed over outside a scan (the data of restart
    // intervals no block needed). Before a restart marker: inside a scan.
    dr_jpeg_skipped skipped_between_markers;
    dr_jpeg_skipped skipped_after_scan_data;
    dr_jpeg_skipped skipped_before_restart;
    // libjpeg's message code of the warning it gave assembling the ICC profile from its APP2
    // chunks (a wrong count, a repeated, zero or missing sequence number), -1 when none: it then
    // returns no profile, and the call does not fail.
    int icc_warning_code;
    int reading_icc;
    int seeking_restart;
    // The marker reader's last marker was an RSTn (between scans, where libjpeg passes over it):
    // what follows it is another restart interval's entropy-coded data, not a marker segment.
    int after_restart_marker;
    int (*libjpeg_read_markers)(j_decompress_ptr cinfo);
    jpeg_marker_parser_method libjpeg_read_restart_marker;
    int opened;
    int started;
} dr_jpeg_decoder;

typedef struct dr_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    dr_jpeg_error error;
    dr_jpeg_destination destination;
    int opened;
    int started;
} dr_jpeg_encoder;

// ---- decoding -------------------------------------------------------------------
// Create returns NULL only when out of memory. Destroy frees all (it never calls back).
// max_scans > 0 refuses files with more scans (a progressive file can carry thousands,
// each a full pass over the coefficients: a cheap way to make a decoder spin).
dr_jpeg_decoder *dr_decoder_create(int max_scans);
void dr_decoder_destroy(dr_jpeg_decoder *decoder);
// Reads through `read` (with `context`) into a buffer of `buffer_size` bytes, and reads the
// header, keeping APP1 (EXIF, XMP) and APP2 (ICC) markers. `context` must stay valid until
// destroy.
int dr_decoder_open(dr_jpeg_decoder *decoder, dr_read_callback read, void *context, size_t buffer_size);
// Sets the output color space and DCT scaling (scale_num/8), then starts decompression.
// A progressive file is read to its end here, into the whole-image coefficient buffer.
int dr_decoder_start(dr_jpeg_decoder *decoder, J_COLOR_SPACE out_color_space,
                     unsigned int scale_num, int fast_upsample);
int dr_decoder_read(dr_jpeg_decoder *decoder, JSAMPARRAY rows, JDIMENSION max_rows,
                    JDIMENSION *rows_read);
// Skips at most up to the last row, which is left for read or finish (see finish).
int dr_decoder_skip(dr_jpeg_decoder *decoder, JDIMENSION rows, JDIMENSION *rows_skipped);
// Decodes the entropy data of every row not read yet (libjpeg's own skip to the bottom marks
// the input finished without reading it, which would hide damage there), reads up to the
// EOI marker, then reads what follows it to the end of the stream, counting it in
// `trailing_bytes` (0 when the source ran dry: there was no EOI to follow).
int dr_decoder_finish(dr_jpeg_decoder *decoder);
// The ICC profile assembled from APP2 chunks, malloc'd (free with free()); NULL if none, or
// if libjpeg could not assemble the chunks (then `icc_warning_code` says why).
int dr_decoder_icc_profile(dr_jpeg_decoder *decoder, JOCTET **profile, unsigned int *length);

// ---- encoding -------------------------------------------------------------------
dr_jpeg_encoder *dr_encoder_create(void);
void dr_encoder_destroy(dr_jpeg_encoder *encoder);
// Writes through `write` (with `context`) from a buffer of `buffer_size` bytes. `context`
// must stay valid until destroy.
int dr_encoder_open(dr_jpeg_encoder *encoder, dr_write_callback write, void *context, size_t buffer_size);
#define DR_ENCODE_RGB 0                 // 3-component RGB input, stored as YCbCr
#define DR_ENCODE_CMYK 1                // 4-component CMYK input, stored as CMYK (with an Adobe marker)
#define DR_ENCODE_YCCK 2                // 4-component CMYK input, stored as YCCK (with an Adobe marker)
#define DR_ENCODE_GREY 3                // 1-component input, stored as greyscale
// `colour` is one of DR_ENCODE_*; quality 1..100; for RGB, chroma 4:4:4 when full_chroma, else
// 4:2:0 (CMYK, YCCK and grey take libjpeg's defaults); progressive uses libjpeg's standard scan script.
int dr_encoder_start(dr_jpeg_encoder *encoder, JDIMENSION width, JDIMENSION height,
                     int quality, int full_chroma, int optimize_coding, int progressive, int colour);
int dr_encoder_write_marker(dr_jpeg_encoder *encoder, int marker, const JOCTET *data,
                            unsigned int length);
int dr_encoder_write_icc_profile(dr_jpeg_encoder *encoder, const JOCTET *data,
                                 unsigned int length);
int dr_encoder_write(dr_jpeg_encoder *encoder, JSAMPARRAY rows, JDIMENSION count,
                     JDIMENSION *rows_written);
// Finishes the stream and hands the last buffered bytes to the write callback. Making
// them durable is the sink's business.
int dr_encoder_finish(dr_jpeg_encoder *encoder);

#endif
