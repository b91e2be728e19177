#include <zlib.h>

// inflateInit2 and deflateInit2 are macros: Swift calls these instead.
static inline int openmarket_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}

static inline int openmarket_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
