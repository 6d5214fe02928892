/*
 * Debuggers and profilers.
 *
 * gdb (and lldb) learn about JIT code through the GDB JIT interface: the
 * process keeps a list of in-memory object files (__jit_debug_descriptor,
 * defined by LLVM's ORC target-process library) and calls
 * __jit_debug_register_code, where a debugger sets a breakpoint, on each
 * change.  LLJIT's debug support (LLVMOrcLLJITEnableDebugSupport, in
 * LLVM-C's LLJITUtils.h since LLVM 18, also in 22) submits each linked
 * object there, with its sections' load addresses patched in, so
 * backtraces name JIT functions, and give file:line when the IR carries
 * debug info.  It works with the default JITLink object layer.
 *
 * perf reads /tmp/perf-<pid>.map ("START SIZE name" per line, hex).  LLVM-C's
 * perf listener (LLVMCreatePerfJITEventListener) attaches only to an RTDyld
 * object layer, not to the JITLink layer LLJIT uses, so tanjit writes the
 * map itself, as Julia and PostgreSQL do: after each compiling lookup it
 * reads the function symbols of the objects registered with the GDB
 * interface since the last time (the patched section addresses plus the
 * symbols' offsets).  So perf_map turns the GDB registration on as well.
 */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/LLJITUtils.h>

#include "common/alloc.h"
#include "jit/jit.h"

int jit_enable_debug_support(tanjit_session *s, tanjit_error **err) {
  LLVMErrorRef e = LLVMOrcLLJITEnableDebugSupport(s->jit);
  if (e)
    return tj_fail_llvm(err, TANJIT_ERR_INTERNAL, e,
                        "cannot make JIT code visible to debuggers");
  return 0;
}

/* The GDB JIT interface's records, as GDB documents them. */
struct jit_code_entry {
  struct jit_code_entry *next_entry;
  struct jit_code_entry *prev_entry;
  const char *symfile_addr;
  uint64_t symfile_size;
};
struct jit_descriptor {
  uint32_t version;
  uint32_t action_flag;
  struct jit_code_entry *relevant_entry;
  struct jit_code_entry *first_entry;
};
extern struct jit_descriptor __jit_debug_descriptor;

/* The process has one map file and one list of objects: which objects were
 * written is process state, kept here under its own lock.  Only objects
 * still registered are remembered, so one freed (tanjit_unload) and another
 * linked at the same address is written again. */
static pthread_mutex_t perf_lock = PTHREAD_MUTEX_INITIALIZER;
static const void **perf_written;
static size_t perf_n_written;

static int was_written(const void *object) {
  for (size_t i = 0; i < perf_n_written; i++)
    if (perf_written[i] == object)
      return 1;
  return 0;
}

/* Writes the functions of one registered ELF object (64-bit, as LLJIT
 * emits on the hosts tanjit supports). */
static void write_object_functions(FILE *map, const char *obj, uint64_t size) {
  if (size < sizeof(Elf64_Ehdr) || memcmp(obj, ELFMAG, SELFMAG) != 0 ||
      obj[EI_CLASS] != ELFCLASS64)
    return;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)obj;
  if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
    return;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(obj + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum ||
        sh[i].sh_offset + sh[i].sh_size > size)
      continue;
    const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
    if (strtab->sh_offset + strtab->sh_size > size)
      continue;
    const Elf64_Sym *sym = (const Elf64_Sym *)(obj + sh[i].sh_offset);
    size_t n = sh[i].sh_size / sizeof *sym;
    for (size_t k = 0; k < n; k++) {
      if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || !sym[k].st_size ||
          sym[k].st_shndx == SHN_UNDEF || sym[k].st_shndx >= eh->e_shnum ||
          sym[k].st_name >= strtab->sh_size)
        continue;
      uint64_t base = sh[sym[k].st_shndx].sh_addr;
      if (!base) /* the section's load address was not patched in */
        continue;
      const char *name = obj + strtab->sh_offset + sym[k].st_name;
      size_t max = strtab->sh_size - sym[k].st_name;
      fprintf(map, "%" PRIx64 " %" PRIx64 " %.*s\n", base + sym[k].st_value,
              (uint64_t)sym[k].st_size, (int)strnlen(name, max), name);
    }
  }
}

void jit_perf_map_update(tanjit_session *s) {
  if (!s->perf_map)
    return;
  pthread_mutex_lock(&perf_lock);
  size_t n = 0;
  for (struct jit_code_entry *e = __jit_debug_descriptor.first_entry; e;
       e = e->next_entry)
    n++;
  const void **now = tj_calloc(n + 1, sizeof *now);
  if (!now) {
    pthread_mutex_unlock(&perf_lock);
    return; /* profiling aid only: nothing to report to */
  }
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)getpid());
  FILE *map = NULL;
  size_t k = 0;
  for (struct jit_code_entry *e = __jit_debug_descriptor.first_entry; e && k < n;
       e = e->next_entry) {
    if (!was_written(e->symfile_addr)) {
      if (!map) {
        /* O_NOFOLLOW: /tmp is shared, and the name is predictable */
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || !(map = fdopen(fd, "a"))) {
          if (fd >= 0)
            close(fd);
          continue; /* not remembered: tried again next time */
        }
      }
      write_object_functions(map, e->symfile_addr, e->symfile_size);
    }
    now[k++] = e->symfile_addr;
  }
  if (map)
    fclose(map);
  free(perf_written);
  perf_written = now;
  perf_n_written = k;
  pthread_mutex_unlock(&perf_lock);
}
