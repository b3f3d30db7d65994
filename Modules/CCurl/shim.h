// C shim for libcurl: the header plus typed wrappers for curl_easy_setopt and curl_easy_getinfo,
// which are variadic and cannot be called from Swift, and for the multi interface's messages (a
// struct with a union). Imported only by CastMetadata.
//
// libcurl is the library FoundationNetworking (URLSession on Linux) already links; Castor calls it
// directly where URLSession cannot bound a download: URLSession decodes gzip inside libcurl and
// queues every decoded chunk for its delegate, so a gzip bomb grows the process by the whole
// decoded size before a cancel can take effect. A libcurl write callback that refuses a chunk
// stops the transfer at once.
#ifndef CASTOR_CCURL_SHIM_H
#define CASTOR_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*castor_curl_write_callback)(char *data, size_t size, size_t count, void *user);

static inline CURLcode castor_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode castor_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode castor_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode castor_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode castor_curl_set_write_callback(CURL *handle, castor_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
/// The last response's HTTP status (0 when none).
static inline long castor_curl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
/// Where the last response redirects to (`Location`, resolved), or NULL.
static inline const char *castor_curl_redirect_url(CURL *handle) {
    char *url = NULL;
    curl_easy_getinfo(handle, CURLINFO_REDIRECT_URL, &url);
    return url;
}
/// Global set-up (reference counted by libcurl; thread-safe since 7.84).
static inline CURLcode castor_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
/// The next finished transfer of a multi handle (its result in `result`), or NULL when none is left.
static inline CURL *castor_curl_multi_next_done(CURLM *multi, CURLcode *result) {
    int left = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &left)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *result = message->data.result;
            return message->easy_handle;
        }
    }
    return NULL;
}
/// Names the calling thread (at most 15 characters) so `/proc/self/task/*/comm` and debuggers show
/// it; the download driver's thread calls it. Declared here because glibc declares it only under
/// `_GNU_SOURCE`, which Swift's Glibc module is not built with (and Foundation's `Thread.name` does
/// not reach the kernel on Linux).
extern int pthread_setname_np(unsigned long thread, const char *name);
extern unsigned long pthread_self(void);
static inline void castor_name_current_thread(const char *name) { (void)pthread_setname_np(pthread_self(), name); }
/// `CURL_WRITEFUNC_ERROR` is a macro (7.87+); 0 aborts as well on every version.
static inline size_t castor_curl_write_abort(void) { return 0; }

#endif
