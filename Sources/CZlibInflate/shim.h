#include <zlib.h>

// inflateInit2 is a macro: Swift calls this instead.
static inline int openmarket_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}
