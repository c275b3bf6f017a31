/*
 * emu_plot.h - an experiment's outputs: its table as a data file
 * (whitespace-separated columns, '#' header lines) and its plot, an SVG
 * drawn by gnuplot (Debian package gnuplot-nox) from a script written
 * next to the data.
 */
#ifndef LOCSCHED_EMU_PLOT_H
#define LOCSCHED_EMU_PLOT_H

#include <stdio.h>

/* Open DIR/NAME.dat for writing; NULL with a message on stderr. */
FILE *emu_data_open(const char *dir, const char *name);

/*
 * Write DIR/NAME.gp (script, which must set its own output to NAME.svg)
 * and run gnuplot on it in DIR.  Returns 0 when NAME.svg was written, -1
 * otherwise (a message says why; no gnuplot is not fatal to callers).
 */
int emu_plot(const char *dir, const char *name, const char *script);

#endif
