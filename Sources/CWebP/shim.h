#ifndef DARKROOM_CWEBP_SHIM_H
#define DARKROOM_CWEBP_SHIM_H
// encode.h needs size_t and the fixed-width integers declared first.
#include <stddef.h>
#include <stdint.h>
#include <webp/encode.h>
// The container: metadata chunks (ICCP, EXIF, XMP) and the VP8X header that announces them.
#include <webp/mux.h>
// LibWebP's memory bound (WebPEncoder.workingBytes) was measured on libwebp 1.2.4, Debian 12's.
#if WEBP_ENCODER_ABI_VERSION < 0x020f
#error "darkroom needs libwebp 1.2 or newer: `make deps` installs libwebp-dev"
#endif
#endif
