#ifndef ZEADER_CCURL_SHIM_H
#define ZEADER_CCURL_SHIM_H
/* libcurl for Swift. curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are
 * variadic, which Swift cannot call; these typed inline wrappers give each argument kind
 * its own signature; one socket opener (below). Nothing else is wrapped: the rest of the
 * API imports as it is. */
/* The type-checking macros of typecheck-gcc.h cannot see through these wrappers. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <sys/socket.h>

/* curl_global_init(CURL_GLOBAL_ALL): the flags are a macro expression. */
static inline CURLcode zc_global_init(void) {
    return curl_global_init(CURL_GLOBAL_ALL);
}

static inline CURLcode zc_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode zc_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* Strings are copied by libcurl (except CURLOPT_ERRORBUFFER, which must outlive the handle's use). */
static inline CURLcode zc_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode zc_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode zc_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
static inline CURLcode zc_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/* CURLOPT_DEBUGFUNCTION. */
static inline CURLcode zc_easy_setopt_debug_callback(CURL *handle, curl_debug_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, callback);
}

/* CURLOPT_OPENSOCKETFUNCTION: libcurl opens its sockets without SOCK_CLOEXEC, so a
 * program started at that moment by another thread (an exec: feed, a browser, a podcast
 * player) would inherit a live connection and keep it open. This one closes on exec. */
static inline curl_socket_t zc_open_socket_closing_on_exec(void *clientp, curlsocktype purpose,
                                                           struct curl_sockaddr *address) {
    (void)clientp;
    (void)purpose;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

static inline CURLcode zc_easy_open_sockets_closing_on_exec(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, zc_open_socket_closing_on_exec);
}

static inline CURLcode zc_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode zc_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode zc_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

#endif
