#ifndef ZEADER_CNCURSES_SHIM_H
#define ZEADER_CNCURSES_SHIM_H
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <sys/ioctl.h>
#include <ncursesw/curses.h>

/* Wrappers for curses macros that Swift cannot import. */
static inline int zc_color_pair(int n) { return COLOR_PAIR(n); }
static inline int zc_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int zc_getmaxx(WINDOW *w) { return getmaxx(w); }
static inline WINDOW *zc_stdscr(void) { return stdscr; }
static inline int zc_key_resize(void) { return KEY_RESIZE; }
static inline int zc_a_bold(void) { return (int)A_BOLD; }
static inline int zc_a_reverse(void) { return (int)A_REVERSE; }
static inline int zc_a_underline(void) { return (int)A_UNDERLINE; }
static inline int zc_a_dim(void) { return (int)A_DIM; }
static inline int zc_a_standout(void) { return (int)A_STANDOUT; }
static inline int zc_a_blink(void) { return (int)A_BLINK; }
static inline int zc_a_invis(void) { return (int)A_INVIS; }
static inline int zc_a_protect(void) { return (int)A_PROTECT; }
/* The terminal's number of colours (COLORS may be a macro in some ncurses builds). */
static inline int zc_colors(void) { return COLORS; }
static inline int zc_color_pairs(void) { return COLOR_PAIRS; }
static inline int zc_attrset(int attributes) { return wattrset(stdscr, attributes); }
static inline void zc_background(int attributes) { wbkgdset(stdscr, (chtype)attributes | ' '); }
static inline int zc_mvaddnwstr(int y, int x, const wchar_t *text, int n) { return mvwaddnwstr(stdscr, y, x, text, n); }
static inline int zc_get_wch(wint_t *out) { return wget_wch(stdscr, out); }
static inline int zc_key_code_yes(void) { return KEY_CODE_YES; }
/* The terminal's size from the kernel (0 when it cannot be read). */
static inline void zc_terminal_size(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0) { *rows = ws.ws_row; *cols = ws.ws_col; } else { *rows = 0; *cols = 0; }
}

#endif
