#ifndef OPENMARKET_CCURL_SHIM_H
#define OPENMARKET_CCURL_SHIM_H
#include <curl/curl.h>

/* CURLVERSION_NOW is a macro Swift cannot see. */
static inline const curl_version_info_data *om_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}
#endif
