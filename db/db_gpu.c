/*
 * db_gpu.c - the GPU types of the host row's columns (db_gpu.h).
 */
#include "db_gpu.h"

#include <string.h>

const char *const db_gpu_names[DB_NGPU_TYPES] = {
#define DB_GPU_NAME(id, name, col) name,
    DB_GPU_TYPES(DB_GPU_NAME)
#undef DB_GPU_NAME
};

int db_gpu_type(const char *name)
{
    int i;
    for (i = 0; i < DB_NGPU_TYPES; i++)
        if (strcmp(name, db_gpu_names[i]) == 0)
            return i;
    return -1;
}
