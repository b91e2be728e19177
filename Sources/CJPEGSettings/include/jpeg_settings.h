#ifndef OPENMARKET_JPEG_SETTINGS_H
#define OPENMARKET_JPEG_SETTINGS_H

/// Whether TurboJPEG will write optimised Huffman tables (TJ_OPTIMIZE is set in the
/// environment). The setting itself is made by a constructor in jpeg_settings.c, before main
/// and before any thread exists.
int openmarket_jpeg_optimise_huffman(void);

#endif
