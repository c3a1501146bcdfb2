#ifndef ZEADER_CCHAFA_SHIM_H
#define ZEADER_CCHAFA_SHIM_H
/* Pictures for Swift: libchafa (symbols, sixel, kitty and iTerm2 output), stb_image (PNG,
 * JPEG, GIF) and libwebp, all Debian packages. Only the wrappers below are added: a GString
 * handed back as bytes the caller frees, and the stb and libwebp calls the decoder makes. */
#include <chafa.h>
#include <stb/stb_image.h>
/* The encoders of libstb and libwebp, which the tests use to make their pictures. */
#include <stb/stb_image_write.h>
#include <webp/encode.h>
#include <webp/decode.h>
#include <stdlib.h>
#include <string.h>

/* chafa_canvas_print's text as a malloc'd copy of `*length` bytes (free() it): a GString
 * and its freeing function are macros and inline code Swift does not see through. */
static inline char *zc_chafa_canvas_print(ChafaCanvas *canvas, ChafaTermInfo *term_info, size_t *length) {
    GString *printed = chafa_canvas_print(canvas, term_info);
    if (printed == NULL) {
        *length = 0;
        return NULL;
    }
    char *copy = malloc(printed->len + 1);
    if (copy != NULL) {
        memcpy(copy, printed->str, printed->len + 1);
        *length = printed->len;
    } else {
        *length = 0;
    }
    g_string_free(printed, TRUE);
    return copy;
}

#endif
