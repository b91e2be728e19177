#ifndef OPENMARKET_CWEBP_SHIM_H
#define OPENMARKET_CWEBP_SHIM_H
#include <webp/decode.h>
#include <webp/demux.h>
#endif
