#ifndef DARKROOM_CPOSTGRES_SHIM_H
#define DARKROOM_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
