#ifndef DARKROOM_CLCMS_SHIM_H
#define DARKROOM_CLCMS_SHIM_H
#include <lcms2.h>
// The pixel formats are macro expressions Swift cannot import: the ones darkroom uses, as constants.
static const cmsUInt32Number DR_TYPE_RGB_8 = TYPE_RGB_8;
static const cmsUInt32Number DR_TYPE_CMYK_8 = TYPE_CMYK_8;
// CMYK stored inverted (0 is full ink), as Adobe's JPEGs hold it.
static const cmsUInt32Number DR_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;
#endif
