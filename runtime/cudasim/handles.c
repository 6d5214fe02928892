/* handles.c: sets of live opaque handles (contexts, streams, host blocks).
 *
 * Context and stream handles are numbers that no allocator ever returns
 * again: a destroyed stream's handle stays invalid forever, where a freed
 * heap address could come back as a new stream and hide a use after
 * destroy. The numbers start high and step by 16 so they never equal the
 * special streams 0, 1 (legacy) and 2 (per-thread). Callers never
 * dereference them. */
#include "cusim.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_HANDLE ((uintptr_t)0xc0da0000u)
#define HANDLE_STEP ((uintptr_t)16)

static uintptr_t next_handle = FIRST_HANDLE;

uintptr_t cusim_handle_next(void)
{
    uintptr_t handle = next_handle;
    next_handle += HANDLE_STEP;
    return handle;
}

bool cusim_handle_add(struct cusim_handle_set *set, uintptr_t handle, uintptr_t owner)
{
    if (set->count == set->capacity) {
        size_t capacity = set->capacity ? set->capacity * 2 : 16;
        struct cusim_handle_entry *entries = realloc(set->entries, capacity * sizeof *entries);
        if (!entries)
            return false;
        set->entries = entries;
        set->capacity = capacity;
    }
    set->entries[set->count++] = (struct cusim_handle_entry){.handle = handle, .owner = owner};
    return true;
}

ptrdiff_t cusim_handle_find(const struct cusim_handle_set *set, uintptr_t handle)
{
    for (size_t i = 0; i < set->count; ++i)
        if (set->entries[i].handle == handle)
            return (ptrdiff_t)i;
    return -1;
}

void cusim_handle_remove_at(struct cusim_handle_set *set, size_t index)
{
    set->entries[index] = set->entries[--set->count];
}

void cusim_handle_set_clear(struct cusim_handle_set *set)
{
    free(set->entries);
    memset(set, 0, sizeof *set);
}
