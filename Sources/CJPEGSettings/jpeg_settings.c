#include <stdlib.h>
#include "jpeg_settings.h"

// TurboJPEG 2.1 has no per-handle flag for optimised Huffman tables: tjCompress2 reads
// TJ_OPTIMIZE from the environment at each compression. setenv may move `environ` while
// another thread copies it (Foundation's Process.run does, to start a child), so it is set
// here, once, while the process has a single thread: a constructor runs before main and
// before a test bundle's code. An environment that already says otherwise is kept.
__attribute__((constructor))
static void openmarket_set_jpeg_environment(void) {
    setenv("TJ_OPTIMIZE", "1", 0);
}

int openmarket_jpeg_optimise_huffman(void) {
    const char *value = getenv("TJ_OPTIMIZE");
    return value != NULL && value[0] == '1';
}
