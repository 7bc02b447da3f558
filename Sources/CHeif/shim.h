#ifndef DARKROOM_CHEIF_SHIM_H
#define DARKROOM_CHEIF_SHIM_H
// Debian installs heif.h in a multiarch folder; pkg-config's -I points there.
#include <stddef.h>
#include <stdint.h>
#include <libheif/heif.h>
#include <libheif/heif_items.h>
#include <libheif/heif_properties.h>
#if !LIBHEIF_HAVE_VERSION(1, 19, 7)
#error "darkroom needs libheif 1.19.7 or newer: `make deps` installs it from Debian 12's bookworm-backports"
#endif
#endif
