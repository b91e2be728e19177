#ifndef OPENMARKET_CCURL_SHIM_H
#define OPENMARKET_CCURL_SHIM_H
#include <curl/curl.h>

/* Swift cannot call C variadic functions nor see function-like macros, so
   each form of curl_easy_setopt / getinfo / curl_share_setopt the client uses
   gets a typed wrapper here. Nothing else lives in this module. */

static inline const curl_version_info_data *om_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

static inline CURLcode om_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode om_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode om_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode om_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode om_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode om_easy_setopt_mime(CURL *h, curl_mime *v) { return curl_easy_setopt(h, CURLOPT_MIMEPOST, v); }
static inline CURLcode om_easy_setopt_share(CURL *h, CURLSH *v) { return curl_easy_setopt(h, CURLOPT_SHARE, v); }
static inline CURLcode om_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback f) { return curl_easy_setopt(h, o, f); }
static inline CURLcode om_easy_setopt_debug_function(CURL *h, curl_debug_callback f) { return curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, f); }

static inline CURLcode om_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode om_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

static inline CURLSHcode om_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }
static inline CURLSHcode om_share_setopt_lock(CURLSH *s, curl_lock_function f) { return curl_share_setopt(s, CURLSHOPT_LOCKFUNC, f); }
static inline CURLSHcode om_share_setopt_unlock(CURLSH *s, curl_unlock_function f) { return curl_share_setopt(s, CURLSHOPT_UNLOCKFUNC, f); }
static inline CURLSHcode om_share_setopt_userdata(CURLSH *s, void *v) { return curl_share_setopt(s, CURLSHOPT_USERDATA, v); }
#endif
