#ifndef DARKROOM_CHEIF_SHIM_H
#define DARKROOM_CHEIF_SHIM_H
// Debian installs heif.h in a multiarch folder; pkg-config's -I points there.
#include <stddef.h>
#include <stdint.h>
#include <libheif/heif.h>
#endif
