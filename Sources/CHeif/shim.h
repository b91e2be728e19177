#ifndef OPENMARKET_CHEIF_SHIM_H
#define OPENMARKET_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
