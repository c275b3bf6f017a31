/*
 * db_gpu.h - the GPU types the host row has columns for
 * (gpu_COL_count, gpu_COL_peak_flops): each type's name, as clients spell
 * it in <coproc><type> and app versions in coproc_type, and the COL of
 * its columns.  One list for the scheduler's host row, its credit rate
 * and the locality daemon's, and the reply's "no app for this GPU type".
 *
 * DB_GPU_TYPES(X) calls X(ID, NAME, COL) once a type, in column order;
 * the statements that name the columns are made from it at compile time.
 */
#ifndef LOCSCHED_DB_GPU_H
#define LOCSCHED_DB_GPU_H

#define DB_GPU_TYPES(X)              \
    X(NVIDIA, "NVIDIA", nvidia)      \
    X(ATI, "ATI", ati)               \
    X(INTEL, "intel_gpu", intel)

enum db_gpu_type {
#define DB_GPU_ENUM(id, name, col) DB_GPU_##id,
    DB_GPU_TYPES(DB_GPU_ENUM)
#undef DB_GPU_ENUM
    DB_NGPU_TYPES
};

/* The types' names, by enum db_gpu_type. */
extern const char *const db_gpu_names[DB_NGPU_TYPES];

/* The type of this name, or -1 ("" for the CPU, or a type the host row
 * has no columns for). */
int db_gpu_type(const char *name);

#endif
