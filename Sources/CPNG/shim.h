#ifndef OPENMARKET_CPNG_SHIM_H
#define OPENMARKET_CPNG_SHIM_H
#include <png.h>
#endif
