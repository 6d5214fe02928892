/*
 * Writing a whole buffer to a file descriptor: the object cache's files,
 * the bitcode sandbox's input and the sandbox's output all need every
 * byte written or a failure, across short writes and EINTR.
 */
#ifndef TANJIT_COMMON_FDIO_H
#define TANJIT_COMMON_FDIO_H

#include <stddef.h>

/* 0 when all n bytes of p reached fd; -1 (errno set) otherwise. */
int tj_write_all(int fd, const void *p, size_t n);

#endif
