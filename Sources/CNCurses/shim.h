#ifndef ZEADER_CNCURSES_SHIM_H
#define ZEADER_CNCURSES_SHIM_H
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
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
#endif
