#ifndef OPENMARKET_CCURL_SHIM_H
#define OPENMARKET_CCURL_SHIM_H
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

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

/* A multipart part that libcurl may read once and never send again by itself.
   libcurl re-sends a request on a fresh connection when a reused one turns out dead before
   any answer byte arrived (Curl_retry_request), and on an HTTP/2 stream the server refused.
   For a register that may create a second product: the server may have processed it before
   the connection died. Sending again needs the body rewound, through this seek callback,
   which allows it only while nothing has been read; otherwise the transfer fails with
   CURLE_SEND_FAIL_REWIND and the client treats the register as ambiguous (looked up before
   any re-send). */
typedef struct {
    const char *data;
    size_t size;
    size_t position;
    int read;     /* bytes were handed to libcurl */
    int refused;  /* libcurl asked to send them again */
} om_once_part;

static size_t om_once_read(char *buffer, size_t size, size_t count, void *arg) {
    om_once_part *part = (om_once_part *)arg;
    size_t room = size * count, left = part->size - part->position;
    size_t n = left < room ? left : room;
    if (n > 0) {
        memcpy(buffer, part->data + part->position, n);
        part->position += n;
        part->read = 1;
    }
    return n;
}

static int om_once_seek(void *arg, curl_off_t offset, int origin) {
    om_once_part *part = (om_once_part *)arg;
    if (offset == 0 && origin == SEEK_SET && !part->read) {
        part->position = 0;
        return CURL_SEEKFUNC_OK;
    }
    part->refused = 1;
    return CURL_SEEKFUNC_FAIL;
}

static inline CURLcode om_mime_data_once(curl_mimepart *mimepart, om_once_part *part) {
    return curl_mime_data_cb(mimepart, (curl_off_t)part->size, om_once_read, om_once_seek, NULL, part);
}
#endif
