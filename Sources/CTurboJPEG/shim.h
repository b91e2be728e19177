#ifndef OPENMARKET_CTURBOJPEG_SHIM_H
#define OPENMARKET_CTURBOJPEG_SHIM_H
#include <turbojpeg.h>
#endif
