// libcurl (7.88 in Debian 12, 8.14 in Debian 13): HTTP and HTTPS for the
// photo libraries on servers, through its multi interface. Loaded on
// demand (COnDemand): nothing links it.
//
// curl_easy_setopt and curl_easy_getinfo take their value through `...`,
// which Swift cannot call: these typed wrappers pass each kind of value.
// The type-checking macros of curl's headers are off, since the wrappers
// are what check the type.
#pragma once
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

typedef size_t (*kioskd_curl_write_callback)(char *data, size_t size, size_t count, void *context);

// Basic or digest, as the server asks (a macro with casts, which Swift does not import).
static const long kioskd_curl_auth_basic_or_digest = (long)(CURLAUTH_BASIC | CURLAUTH_DIGEST);

// The version data of the libcurl loaded (CURLVERSION_NOW is a macro Swift does not import).
static inline curl_version_info_data *kioskd_curl_version(void) { return curl_version_info(CURLVERSION_NOW); }

static inline CURLcode kioskd_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode kioskd_curl_set_size(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode kioskd_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode kioskd_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode kioskd_curl_set_list(CURL *curl, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode kioskd_curl_set_write(CURL *curl, kioskd_curl_write_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode kioskd_curl_get_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}
static inline CURLcode kioskd_curl_get_string(CURL *curl, CURLINFO info, char **value) {
    return curl_easy_getinfo(curl, info, value);
}
