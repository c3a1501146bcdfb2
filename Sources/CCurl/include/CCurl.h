#ifndef ZEADER_CCURL_H
#define ZEADER_CCURL_H
/* libcurl for Swift, loaded on first use. A process that never fetches (the reader at rest,
 * most commands) never maps libcurl and the TLS, Kerberos and LDAP libraries it brings; the
 * first fetch loads it with dlopen. Swift calls only these zc_ functions: curl_easy_setopt,
 * curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call, so each
 * argument kind has its own typed wrapper. libcurl's headers give the types and constants. */
/* The type-checking macros of typecheck-gcc.h cannot see through these wrappers. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/* Loads libcurl and runs curl_global_init, once per process (thread-safe). Returns NULL when
 * libcurl is ready, or why it is not (which library could not be loaded or lacked a function). */
const char *zc_load(void);

/* Each of these loads libcurl first and returns NULL when it cannot be loaded. */
CURL *zc_easy_init(void);
CURLM *zc_multi_init(void);

/* Given a handle, libcurl is loaded: these only forward. */
void zc_easy_cleanup(CURL *handle);
const char *zc_easy_strerror(CURLcode code);
struct curl_slist *zc_slist_append(struct curl_slist *list, const char *line);
void zc_slist_free_all(struct curl_slist *list);

CURLcode zc_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode zc_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/* Strings are copied by libcurl (except CURLOPT_ERRORBUFFER, which must outlive the handle's use). */
CURLcode zc_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode zc_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode zc_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
CURLcode zc_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback callback);
/* CURLOPT_DEBUGFUNCTION. */
CURLcode zc_easy_setopt_debug_callback(CURL *handle, curl_debug_callback callback);
/* CURLOPT_OPENSOCKETFUNCTION with a socket that closes on exec: libcurl opens its sockets
 * without SOCK_CLOEXEC, so a program started at that moment by another thread (an exec: feed,
 * a browser, a podcast player) would inherit a live connection and keep it open. */
CURLcode zc_easy_open_sockets_closing_on_exec(CURL *handle);
CURLcode zc_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode zc_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);

CURLMcode zc_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode zc_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode zc_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode zc_multi_perform(CURLM *multi, int *running);
CURLMcode zc_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout_ms, int *ready);
CURLMcode zc_multi_wakeup(CURLM *multi);
CURLMsg *zc_multi_info_read(CURLM *multi, int *queued);
CURLMcode zc_multi_cleanup(CURLM *multi);

#endif
