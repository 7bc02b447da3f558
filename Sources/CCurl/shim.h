#ifndef DARKROOM_CCURL_SHIM_H
#define DARKROOM_CCURL_SHIM_H
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these typed
// wrappers are the only way LibCurl reaches them. Nothing else lives here.
#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>

typedef size_t (*darkroom_curl_data_callback)(char *, size_t, size_t, void *);

static inline CURLcode darkroom_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode darkroom_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode darkroom_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode darkroom_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode darkroom_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode darkroom_curl_set_callback(CURL *handle, CURLoption option, darkroom_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline long darkroom_curl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
// Macros Swift does not import.
static inline size_t darkroom_curl_write_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline int darkroom_curl_pause_continue(void) { return CURLPAUSE_CONT; }
#endif
