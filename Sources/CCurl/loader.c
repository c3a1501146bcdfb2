#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>

/* libcurl's functions, resolved once by load(); read-only after pthread_once. */
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_cleanup)(CURLM *);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[512];
static int loaded;

/* The soname of libcurl 7.16 and later (the multi_poll and multi_wakeup used here need
 * 7.68 and later: a missing function is named below). */
#define LIBCURL "libcurl.so.4"

#define RESOLVE(field, name)                                                                     \
    do {                                                                                         \
        *(void **)(&curl.field) = dlsym(library, name);                                          \
        if (!curl.field) {                                                                       \
            snprintf(load_failure, sizeof load_failure, "%s has no %s (libcurl 7.68 or later is needed)", \
                     LIBCURL, name);                                                             \
            return;                                                                              \
        }                                                                                        \
    } while (0)

static void load(void) {
    /* RTLD_LOCAL: libcurl's symbols serve only these wrappers. */
    void *library = dlopen(LIBCURL, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(load_failure, sizeof load_failure, "cannot load libcurl: %s", why ? why : LIBCURL);
        return;
    }
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
    RESOLVE(multi_init, "curl_multi_init");
    RESOLVE(multi_setopt, "curl_multi_setopt");
    RESOLVE(multi_add_handle, "curl_multi_add_handle");
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
    RESOLVE(multi_perform, "curl_multi_perform");
    RESOLVE(multi_poll, "curl_multi_poll");
    RESOLVE(multi_wakeup, "curl_multi_wakeup");
    RESOLVE(multi_info_read, "curl_multi_info_read");
    RESOLVE(multi_cleanup, "curl_multi_cleanup");
    CURLcode code = curl.global_init(CURL_GLOBAL_ALL);
    if (code != CURLE_OK) {
        snprintf(load_failure, sizeof load_failure, "libcurl did not initialize: %s", curl.easy_strerror(code));
        return;
    }
    loaded = 1;
}

const char *zc_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_failure;
}

CURL *zc_easy_init(void) { return zc_load() ? NULL : curl.easy_init(); }
CURLM *zc_multi_init(void) { return zc_load() ? NULL : curl.multi_init(); }

void zc_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
const char *zc_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }
struct curl_slist *zc_slist_append(struct curl_slist *list, const char *line) { return curl.slist_append(list, line); }
void zc_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode zc_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode zc_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode zc_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode zc_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode zc_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode zc_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl.easy_setopt(handle, option, callback);
}

CURLcode zc_easy_setopt_debug_callback(CURL *handle, curl_debug_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_DEBUGFUNCTION, callback);
}

static curl_socket_t open_socket_closing_on_exec(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)clientp;
    (void)purpose;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

CURLcode zc_easy_open_sockets_closing_on_exec(CURL *handle) {
    return curl.easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, open_socket_closing_on_exec);
}

CURLcode zc_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}

CURLcode zc_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl.easy_getinfo(handle, info, value);
}

CURLMcode zc_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl.multi_setopt(multi, option, value);
}

CURLMcode zc_multi_add_handle(CURLM *multi, CURL *handle) { return curl.multi_add_handle(multi, handle); }
CURLMcode zc_multi_remove_handle(CURLM *multi, CURL *handle) { return curl.multi_remove_handle(multi, handle); }
CURLMcode zc_multi_perform(CURLM *multi, int *running) { return curl.multi_perform(multi, running); }

CURLMcode zc_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout_ms, int *ready) {
    return curl.multi_poll(multi, extra, count, timeout_ms, ready);
}

CURLMcode zc_multi_wakeup(CURLM *multi) { return curl.multi_wakeup(multi); }
CURLMsg *zc_multi_info_read(CURLM *multi, int *queued) { return curl.multi_info_read(multi, queued); }
CURLMcode zc_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }
