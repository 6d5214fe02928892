/*
 * What this host can run, checked when a module loads, before anything
 * hands it to parts of LLVM that abort the process (report_fatal_error,
 * "Cannot select") or print to stderr on what they cannot compile:
 *
 *   triple, data layout   a missing one becomes the host's; another
 *                         architecture or OS, or another data layout, is
 *                         refused;
 *   target-cpu, tune-cpu  per function: the host's CPU and the generic
 *                         levels of its architecture are kept (a level
 *                         needing features the host lacks is refused, as is
 *                         a 32-bit-only CPU); any other name is dropped
 *                         with a warning, and the function is compiled for
 *                         the host's CPU;
 *   target-features       per function: a feature the host's CPU lacks is
 *                         refused; one neither the host's CPU detection nor
 *                         the architecture's baseline knows is dropped with
 *                         a warning; turning off a baseline feature code
 *                         generation needs (-sse2) is dropped with a warning;
 *   intrinsics            of another target (llvm.aarch64.*, llvm.nvvm.*)
 *                         are refused, and host intrinsics of an extension
 *                         the host lacks (llvm.x86.avx512.*);
 *   scalable vectors      anywhere (globals, parameters, instructions,
 *                         constants) on a target that has none;
 *   thread-locals, ifuncs not supported by tanjit's JIT: refused by name.
 *
 * LLVM-C can list neither a target's CPU names nor its features, so what
 * "the host knows" is the host CPU's name and detected features
 * (LLVMGetHostCPUName/Features) plus the tables below.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/TargetMachine.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

/* ---- The host, once per process ---------------------------------------- */

typedef struct host_facts {
  char *triple;      /* normalized */
  char arch[32], os[32];
  char *cpu;
  char *features;    /* ",+f,-g,...," for strstr */
  char *datalayout;
  const char *intrinsic_prefix; /* "x86" for llvm.x86.* */
  int has_scalable_vectors;
  int ok;
} host_facts;

static host_facts host;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

/* The intrinsic name prefix (llvm.<prefix>.) of each LLVM target, by the
 * architectures of its triples. */
static const struct {
  const char *arch;
  const char *prefix;
} target_prefixes[] = {
    {"x86_64", "x86"},       {"i386", "x86"},         {"i486", "x86"},
    {"i586", "x86"},         {"i686", "x86"},         {"aarch64", "aarch64"},
    {"aarch64_be", "aarch64"}, {"arm", "arm"},        {"armv7", "arm"},
    {"thumb", "arm"},        {"nvptx64", "nvvm"},     {"nvptx", "nvvm"},
    {"amdgcn", "amdgcn"},    {"r600", "r600"},        {"powerpc64le", "ppc"},
    {"powerpc64", "ppc"},    {"powerpc", "ppc"},      {"mips", "mips"},
    {"mips64", "mips"},      {"mipsel", "mips"},      {"mips64el", "mips"},
    {"riscv64", "riscv"},    {"riscv32", "riscv"},    {"s390x", "s390"},
    {"wasm32", "wasm"},      {"wasm64", "wasm"},      {"hexagon", "hexagon"},
    {"bpfel", "bpf"},        {"bpfeb", "bpf"},        {"loongarch64", "loongarch"},
    {"spirv64", "spv"},      {"spirv32", "spv"},      {"dxil", "dx"},
    {"ve", "ve"},            {"xcore", "xcore"},
};

/* Intrinsic prefixes of every target, host or not. */
static const char *const all_prefixes[] = {
    "x86", "aarch64", "arm", "nvvm", "amdgcn", "r600", "ppc", "mips", "riscv",
    "s390", "wasm", "hexagon", "bpf", "loongarch", "spv", "dx", "ve", "xcore"};

static const char *prefix_of_arch(const char *arch) {
  for (size_t i = 0; i < sizeof target_prefixes / sizeof *target_prefixes; i++)
    if (strcmp(target_prefixes[i].arch, arch) == 0)
      return target_prefixes[i].prefix;
  return NULL;
}

/* Splits a normalized triple's architecture and OS. */
static void triple_parts(const char *triple, char *arch, size_t arch_size,
                         char *os, size_t os_size) {
  size_t a = strcspn(triple, "-");
  snprintf(arch, arch_size, "%.*s", (int)a, triple);
  const char *vendor = triple[a] ? triple + a + 1 : "";
  size_t v = strcspn(vendor, "-");
  const char *o = vendor[v] ? vendor + v + 1 : "";
  size_t n = strcspn(o, "-");
  snprintf(os, os_size, "%.*s", (int)n, o);
  /* the OS field may carry a version: macosx14.0 */
  for (char *p = os; *p; p++)
    if (*p >= '0' && *p <= '9') {
      *p = '\0';
      break;
    }
}

static int host_has_feature(const char *feature) {
  char key[160];
  snprintf(key, sizeof key, ",+%s,", feature);
  return strstr(host.features, key) != NULL;
}

/* Whether the host's CPU detection reports `feature` at all (+ or -). */
static int host_knows_feature(const char *feature) {
  char key[160];
  snprintf(key, sizeof key, ",-%s,", feature);
  return host_has_feature(feature) || strstr(host.features, key) != NULL;
}

static void learn_host(void) {
  char *triple = LLVMGetDefaultTargetTriple();
  host.triple = LLVMNormalizeTargetTriple(triple);
  LLVMDisposeMessage(triple);
  triple_parts(host.triple, host.arch, sizeof host.arch, host.os, sizeof host.os);
  host.intrinsic_prefix = prefix_of_arch(host.arch);
  host.cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  size_t n = strlen(features);
  host.features = tj_malloc(n + 3);
  if (host.features)
    snprintf(host.features, n + 3, ",%s,", features);
  LLVMDisposeMessage(features);
  LLVMTargetMachineRef tm = jit_host_target_machine(0, NULL);
  if (tm) {
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    char *rep = LLVMCopyStringRepOfTargetData(dl);
    host.datalayout = tj_strdup(rep);
    LLVMDisposeMessage(rep);
    LLVMDisposeTargetData(dl);
    LLVMDisposeTargetMachine(tm);
  }
  host.ok = host.features && host.datalayout && host.triple && host.cpu;
  if (!host.ok)
    return;
  host.has_scalable_vectors =
      (strcmp(host.intrinsic_prefix ? host.intrinsic_prefix : "", "aarch64") == 0 &&
       host_has_feature("sve")) ||
      (strcmp(host.intrinsic_prefix ? host.intrinsic_prefix : "", "riscv") == 0 &&
       host_has_feature("v"));
}

/* ---- Tables: what x86-64 needs and offers (data, by LLVM's names) ------- */

/* Features every x86-64 CPU has and code generation relies on: kept when
 * asked for even where the host's detection does not list them (x87),
 * dropped when a function turns them off (-sse2 aborts code generation
 * returning a double). */
static const char *const x86_64_baseline[] = {"64bit", "x87", "cmov", "cx8",
                                              "fxsr",  "mmx", "sse",  "sse2"};

/* CPU names of the architecture's generic levels, with the features each
 * needs beyond the baseline (psABI micro-architecture levels). */
static const struct {
  const char *cpu;
  const char *needs; /* comma-separated */
} x86_64_levels[] = {
    {"generic", ""},
    {"x86-64", ""},
    {"x86-64-v2", "cx16,popcnt,sse3,sse4.1,sse4.2,ssse3,sahf"},
    {"x86-64-v3", "cx16,popcnt,sse3,sse4.1,sse4.2,ssse3,sahf,avx,avx2,bmi,bmi2,"
                  "f16c,fma,lzcnt,movbe,xsave"},
    {"x86-64-v4", "cx16,popcnt,sse3,sse4.1,sse4.2,ssse3,sahf,avx,avx2,bmi,bmi2,"
                  "f16c,fma,lzcnt,movbe,xsave,avx512f,avx512bw,avx512cd,"
                  "avx512dq,avx512vl"},
};

/* x86 CPUs without 64-bit mode: code for them cannot be generated for an
 * x86-64 triple (LLVM aborts: "64-bit code requested on a subtarget that
 * doesn't support it"). */
static const char *const x86_32bit_cpus[] = {
    "i386",      "i486",        "i586",        "i686",       "pentium",
    "pentium-mmx", "pentiumpro", "pentium2",   "pentium3",   "pentium3m",
    "pentium-m", "pentium4",    "pentium4m",   "lakemont",   "winchip-c6",
    "winchip2",  "c3",          "c3-2",        "geode",      "k6",
    "k6-2",      "k6-3",        "athlon",      "athlon-tbird", "athlon-4",
    "athlon-xp", "athlon-mp",   "yonah",       "prescott"};

/* Host intrinsics of an extension: usable only where the host has it
 * (otherwise instruction selection aborts: "Cannot select"). */
static const struct {
  const char *prefix;
  const char *feature;
} x86_intrinsic_features[] = {
    {"llvm.x86.avx512", "avx512f"}, {"llvm.x86.avx2.", "avx2"},
    {"llvm.x86.avx.", "avx"},       {"llvm.x86.fma.", "fma"},
    {"llvm.x86.fma4.", "fma4"},     {"llvm.x86.xop.", "xop"},
    {"llvm.x86.sse42.", "sse4.2"},  {"llvm.x86.sse41.", "sse4.1"},
    {"llvm.x86.ssse3.", "ssse3"},   {"llvm.x86.sse3.", "sse3"},
    {"llvm.x86.sse4a.", "sse4a"},   {"llvm.x86.aesni.", "aes"},
    {"llvm.x86.sha1", "sha"},       {"llvm.x86.sha256", "sha"},
    {"llvm.x86.vgf2p8", "gfni"},    {"llvm.x86.tbm.", "tbm"},
    {"llvm.x86.amx.", "amx-tile"},  {"llvm.x86.pclmulqdq", "pclmul"},
    {"llvm.x86.rdrand.", "rdrnd"},  {"llvm.x86.rdseed.", "rdseed"},
    {"llvm.x86.avx10.", "avx10.1-256"}, {"llvm.x86.avx2vnni", "avxvnni"},
    {"llvm.x86.vcvtph2ps", "f16c"}, {"llvm.x86.vcvtps2ph", "f16c"},
    {"llvm.x86.bmi.bextr", "bmi"},  {"llvm.x86.bmi.bzhi", "bmi2"},
    {"llvm.x86.bmi.pdep", "bmi2"},  {"llvm.x86.bmi.pext", "bmi2"},
    {"llvm.x86.xbegin", "rtm"},     {"llvm.x86.xend", "rtm"},
    {"llvm.x86.xabort", "rtm"},     {"llvm.x86.xtest", "rtm"},
    {"llvm.x86.xsaves", "xsaves"},  {"llvm.x86.xrstors", "xsaves"},
    {"llvm.x86.xsavec", "xsavec"},  {"llvm.x86.xsaveopt", "xsaveopt"},
    {"llvm.x86.xsave", "xsave"},    {"llvm.x86.xrstor", "xsave"},
    {"llvm.x86.xgetbv", "xsave"},   {"llvm.x86.xsetbv", "xsave"},
    {"llvm.x86.rdpid", "rdpid"},    {"llvm.x86.rdpkru", "pku"},
    {"llvm.x86.wrpkru", "pku"},     {"llvm.x86.clflushopt", "clflushopt"},
    {"llvm.x86.clwb", "clwb"},      {"llvm.x86.clzero", "clzero"},
    {"llvm.x86.umonitor", "waitpkg"}, {"llvm.x86.umwait", "waitpkg"},
    {"llvm.x86.tpause", "waitpkg"}, {"llvm.x86.monitorx", "mwaitx"},
    {"llvm.x86.mwaitx", "mwaitx"},  {"llvm.x86.movdir64b", "movdir64b"},
    {"llvm.x86.directstore", "movdiri"}, {"llvm.x86.enqcmd", "enqcmd"},
    {"llvm.x86.serialize", "serialize"}, {"llvm.x86.senduipi", "uintr"},
    {"llvm.x86.testui", "uintr"},   {"llvm.x86.clui", "uintr"},
    {"llvm.x86.stui", "uintr"},     {"llvm.x86.incssp", "shstk"},
    {"llvm.x86.rdssp", "shstk"},    {"llvm.x86.wrss", "shstk"},
    {"llvm.x86.wruss", "shstk"},    {"llvm.x86.saveprevssp", "shstk"},
    {"llvm.x86.rstorssp", "shstk"}, {"llvm.x86.setssbsy", "shstk"},
    {"llvm.x86.clrssbsy", "shstk"}, {"llvm.x86.lwpins", "lwp"},
    {"llvm.x86.lwpval", "lwp"},     {"llvm.x86.llwpcb", "lwp"},
    {"llvm.x86.slwpcb", "lwp"},     {"llvm.x86.aesenc128kl", "kl"},
    {"llvm.x86.aesdec128kl", "kl"}, {"llvm.x86.aesenc256kl", "kl"},
    {"llvm.x86.aesdec256kl", "kl"}, {"llvm.x86.aesencwide", "widekl"},
    {"llvm.x86.aesdecwide", "widekl"}, {"llvm.x86.encodekey", "kl"},
    {"llvm.x86.loadiwkey", "kl"},   {"llvm.x86.vsha512", "sha512"},
    {"llvm.x86.vsm3", "sm3"},       {"llvm.x86.vsm4", "sm4"},
    {"llvm.x86.vpdpb", "avxvnniint8"}, {"llvm.x86.vpdpw", "avxvnniint16"},
    {"llvm.x86.cmpccxadd", "cmpccxadd"}, {"llvm.x86.aadd", "raoint"},
    {"llvm.x86.aand", "raoint"},    {"llvm.x86.aor", "raoint"},
    {"llvm.x86.axor", "raoint"},    {"llvm.x86.ptwrite", "ptwrite"},
    {"llvm.x86.hreset", "hreset"},  {"llvm.x86.wbnoinvd", "wbnoinvd"},
    {"llvm.x86.rdpru", "rdpru"},    {"llvm.x86.prefetchi", "prefetchi"},
    {"llvm.x86.ldtilecfg", "amx-tile"}, {"llvm.x86.sttilecfg", "amx-tile"},
    {"llvm.x86.tile", "amx-tile"},  {"llvm.x86.tdp", "amx-tile"},
    {"llvm.x86.vcvtne", "avxneconvert"}, {"llvm.x86.vbcstne", "avxneconvert"},
    {"llvm.x86.vpmadd52", "avxifma"}, {"llvm.x86.sse2.", "sse2"},
    {"llvm.x86.sse.", "sse"},       {"llvm.x86.mmx.", "mmx"},
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

static int in_list(const char *const *list, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(list[i], s) == 0)
      return 1;
  return 0;
}

static int is_x86_64_host(void) { return strcmp(host.arch, "x86_64") == 0; }

/* The first feature of the comma-separated `needs` the host lacks, copied
 * into missing; 0 when it has them all. */
static int lacks_one_of(const char *needs, char *missing, size_t size) {
  while (*needs) {
    size_t n = strcspn(needs, ",");
    snprintf(missing, size, "%.*s", (int)n, needs);
    if (n && !host_has_feature(missing) &&
        !in_list(x86_64_baseline, COUNT(x86_64_baseline), missing))
      return 1;
    needs += n + (needs[n] == ',');
  }
  return 0;
}

/* ---- Per function: CPU and features ----------------------------------- */

static const char *function_name(LLVMValueRef f) {
  size_t len;
  return LLVMGetValueName2(f, &len);
}

static char *string_attribute(LLVMValueRef f, const char *kind) {
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
      f, LLVMAttributeFunctionIndex, kind, (unsigned)strlen(kind));
  if (!a)
    return NULL;
  unsigned len;
  const char *v = LLVMGetStringAttributeValue(a, &len);
  return tj_strndup(v ? v : "", len);
}

static void set_string_attribute(LLVMValueRef f, const char *kind,
                                 const char *value) {
  LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind,
                                   (unsigned)strlen(kind));
  if (!value)
    return;
  LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(f));
  LLVMAddAttributeAtIndex(
      f, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(ctx, kind, (unsigned)strlen(kind), value,
                                (unsigned)strlen(value)));
}

/* 0 keep, 1 drop (unknown here), -1 refuse (with *why). */
static int judge_cpu(const char *cpu, int tuning, char *why, size_t size) {
  if (strcmp(cpu, host.cpu) == 0)
    return 0;
  if (!is_x86_64_host())
    return 1;
  for (size_t i = 0; i < COUNT(x86_64_levels); i++)
    if (strcmp(cpu, x86_64_levels[i].cpu) == 0) {
      char missing[64];
      if (!tuning && lacks_one_of(x86_64_levels[i].needs, missing, sizeof missing)) {
        snprintf(why, size, "needs the CPU feature %s, which this host's CPU "
                            "(%s) lacks", missing, host.cpu);
        return -1;
      }
      return 0;
    }
  if (!tuning && in_list(x86_32bit_cpus, COUNT(x86_32bit_cpus), cpu)) {
    snprintf(why, size, "is a 32-bit CPU; this host runs %s code", host.arch);
    return -1;
  }
  return 1;
}

static int check_cpu(tanjit_session *s, LLVMValueRef f, const char *kind,
                     const char *module, tanjit_error **err) {
  char *cpu = string_attribute(f, kind);
  if (!cpu)
    return 0;
  char why[256];
  int verdict = judge_cpu(cpu, strcmp(kind, "tune-cpu") == 0, why, sizeof why);
  int rc = 0;
  if (verdict < 0) {
    rc = tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                 "%s: function %s: %s \"%s\" %s", module, function_name(f),
                 kind, cpu, why);
  } else if (verdict > 0) {
    jit_add_warning(s,
                    "%s: function %s: %s \"%s\" is neither this host's CPU (%s) "
                    "nor a generic level of %s; dropped, the function is "
                    "compiled for the host's CPU",
                    module, function_name(f), kind, cpu, host.cpu, host.arch);
    set_string_attribute(f, kind, NULL);
  }
  free(cpu);
  return rc;
}

static int check_features(tanjit_session *s, LLVMValueRef f, const char *module,
                          tanjit_error **err) {
  char *features = string_attribute(f, "target-features");
  if (!features)
    return 0;
  strbuf kept;
  sb_init(&kept);
  int rc = 0, changed = 0;
  for (char *p = features; *p && !rc;) {
    size_t n = strcspn(p, ",");
    char item[128];
    snprintf(item, sizeof item, "%.*s", (int)n, p);
    p += n + (p[n] == ',');
    if (!item[0])
      continue;
    char sign = item[0];
    const char *name = sign == '+' || sign == '-' ? item + 1 : item;
    int baseline = is_x86_64_host() &&
                   in_list(x86_64_baseline, COUNT(x86_64_baseline), name);
    const char *drop_why = NULL;
    if (sign != '+' && sign != '-') {
      drop_why = "is not of the form +feature or -feature";
    } else if (baseline) {
      if (sign == '-')
        drop_why = "turns off a feature code generation for this host needs";
    } else if (!host_knows_feature(name)) {
      drop_why = "is not a feature this host's CPU detection knows";
    } else if (sign == '+' && !host_has_feature(name)) {
      rc = tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                   "%s: function %s needs the CPU feature %s, which this "
                   "host's CPU (%s) lacks",
                   module, function_name(f), name, host.cpu);
      break;
    }
    if (drop_why) {
      jit_add_warning(s, "%s: function %s: target feature \"%s\" %s; dropped",
                      module, function_name(f), item, drop_why);
      changed = 1;
      continue;
    }
    if (kept.len)
      sb_append(&kept, ",");
    sb_append(&kept, item);
  }
  if (!rc && changed)
    set_string_attribute(f, "target-features", kept.len ? kept.data : NULL);
  if (!rc && kept.failed)
    rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory checking %s", module);
  sb_free(&kept);
  free(features);
  return rc;
}

/* ---- Intrinsics ---------------------------------------------------------- */

/* The function of the first instruction using f, for messages. */
static const char *first_user_function(LLVMValueRef f) {
  for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user))
      return function_name(LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)));
  }
  return NULL;
}

static int check_intrinsic(LLVMValueRef f, const char *module, tanjit_error **err) {
  const char *name = function_name(f);
  if (strncmp(name, "llvm.", 5) != 0)
    return 0;
  const char *user = first_user_function(f);
  for (size_t i = 0; i < COUNT(all_prefixes); i++) {
    size_t n = strlen(all_prefixes[i]);
    if (strncmp(name + 5, all_prefixes[i], n) != 0 || name[5 + n] != '.')
      continue;
    if (host.intrinsic_prefix && strcmp(all_prefixes[i], host.intrinsic_prefix) == 0)
      break;
    return tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                   "%s: %s%s%s uses %s, an intrinsic of another target (%s); "
                   "this host is %s",
                   module, user ? "function " : "", user ? user : "",
                   user ? "" : "the module", name, all_prefixes[i], host.arch);
  }
  if (strncmp(name, "llvm.vscale.", 12) == 0 && !host.has_scalable_vectors)
    return tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                   "%s: %s%s uses %s, but this host's target (%s) has no "
                   "scalable vectors",
                   module, user ? "function " : "the module", user ? user : "",
                   name, host.arch);
  if (is_x86_64_host())
    for (size_t i = 0; i < COUNT(x86_intrinsic_features); i++)
      if (strncmp(name, x86_intrinsic_features[i].prefix,
                  strlen(x86_intrinsic_features[i].prefix)) == 0 &&
          !host_has_feature(x86_intrinsic_features[i].feature))
        return tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                       "%s: %s%s uses %s, which needs the CPU feature %s "
                       "this host's CPU (%s) lacks",
                       module, user ? "function " : "the module",
                       user ? user : "", name, x86_intrinsic_features[i].feature,
                       host.cpu);
  return 0;
}

/* ---- Scalable vectors ---------------------------------------------------- */

/* A set of pointers (types, constants) already looked at. */
typedef struct ptr_set {
  const void **slots;
  size_t cap, count;
} ptr_set;

/* 1 if newly added, 0 if present, -1 on out of memory. */
static int ptr_set_add(ptr_set *set, const void *p) {
  if (2 * (set->count + 1) > set->cap) {
    size_t cap = set->cap ? 2 * set->cap : 256;
    const void **slots = tj_calloc(cap, sizeof *slots);
    if (!slots)
      return -1;
    for (size_t i = 0; i < set->cap; i++)
      if (set->slots[i]) {
        size_t h = ((uintptr_t)set->slots[i] >> 4) & (cap - 1);
        while (slots[h])
          h = (h + 1) & (cap - 1);
        slots[h] = set->slots[i];
      }
    free(set->slots);
    set->slots = slots;
    set->cap = cap;
  }
  size_t h = ((uintptr_t)p >> 4) & (set->cap - 1);
  while (set->slots[h]) {
    if (set->slots[h] == p)
      return 0;
    h = (h + 1) & (set->cap - 1);
  }
  set->slots[h] = p;
  set->count++;
  return 1;
}

/* An explicit work stack: nesting 50,000 deep must not recurse here. */
typedef struct ptr_stack {
  void **items;
  size_t n, cap;
} ptr_stack;

static int ptr_stack_push(ptr_stack *st, void *p) {
  void **items = tj_grow(st->items, &st->cap, st->n + 1, sizeof *items, 64);
  if (!items)
    return -1;
  st->items = items;
  st->items[st->n++] = p;
  return 0;
}

typedef struct scalable_search {
  ptr_set seen_types, seen_values;
  ptr_stack types, values;
  int no_memory;
  const char *lacked; /* what was found, for the message */
} scalable_search;

/* What a type kind needs that the host's target lacks, or NULL.  Code
 * generation aborts on each ("Cannot select"). */
static const char *type_lacked(LLVMTypeKind kind) {
  if (kind == LLVMScalableVectorTypeKind && !host.has_scalable_vectors)
    return "a scalable vector type (<vscale x ...>), which this host's target "
           "does not have";
  if (kind == LLVMX86_AMXTypeKind && !host_has_feature("amx-tile"))
    return "the x86_amx type, which needs the CPU feature amx-tile this host's "
           "CPU lacks";
  if (kind == LLVMTargetExtTypeKind && is_x86_64_host())
    return "a target extension type (target(...)), which this host's target "
           "does not have";
  return NULL;
}

/* Whether t holds a scalable vector anywhere inside. */
static int type_is_scalable(scalable_search *ss, LLVMTypeRef t) {
  ss->types.n = 0;
  if (ptr_stack_push(&ss->types, t)) {
    ss->no_memory = 1;
    return 0;
  }
  while (ss->types.n) {
    LLVMTypeRef ty = ss->types.items[--ss->types.n];
    int added = ptr_set_add(&ss->seen_types, ty);
    if (added <= 0) {
      ss->no_memory |= added < 0;
      continue;
    }
    LLVMTypeKind kind = LLVMGetTypeKind(ty);
    if (type_lacked(kind)) {
      ss->lacked = type_lacked(kind);
      return 1;
    }
    int failed = 0;
    if (kind == LLVMArrayTypeKind || kind == LLVMVectorTypeKind) {
      failed = ptr_stack_push(&ss->types, LLVMGetElementType(ty));
    } else if (kind == LLVMStructTypeKind) {
      unsigned n = LLVMCountStructElementTypes(ty);
      for (unsigned i = 0; i < n && !failed; i++)
        failed = ptr_stack_push(&ss->types, LLVMStructGetTypeAtIndex(ty, i));
    } else if (kind == LLVMFunctionTypeKind) {
      failed = ptr_stack_push(&ss->types, LLVMGetReturnType(ty));
      unsigned n = LLVMCountParamTypes(ty);
      LLVMTypeRef *params = n ? tj_malloc(n * sizeof *params) : NULL;
      if (n && !params)
        failed = 1;
      else if (n)
        LLVMGetParamTypes(ty, params);
      for (unsigned i = 0; i < n && !failed; i++)
        failed = ptr_stack_push(&ss->types, params[i]);
      free(params);
    }
    if (failed) {
      ss->no_memory = 1;
      return 0;
    }
  }
  return 0;
}

/* Whether a value's type, or (for a constant that is not a global) the
 * types inside it, hold a scalable vector. */
static int value_is_scalable(scalable_search *ss, LLVMValueRef v) {
  if (type_is_scalable(ss, LLVMTypeOf(v)))
    return 1;
  if (!LLVMIsAConstant(v) || LLVMIsAGlobalValue(v))
    return 0;
  ss->values.n = 0;
  if (ptr_stack_push(&ss->values, v)) {
    ss->no_memory = 1;
    return 0;
  }
  while (ss->values.n) {
    LLVMValueRef c = ss->values.items[--ss->values.n];
    int added = ptr_set_add(&ss->seen_values, c);
    if (added <= 0) {
      ss->no_memory |= added < 0;
      continue;
    }
    /* type_is_scalable reuses the type stack only */
    if (type_is_scalable(ss, LLVMTypeOf(c)))
      return 1;
    int n = LLVMGetNumOperands(c);
    for (int i = 0; i < n; i++) {
      LLVMValueRef op = LLVMGetOperand(c, (unsigned)i);
      if (op && LLVMIsAConstant(op) && !LLVMIsAGlobalValue(op) &&
          ptr_stack_push(&ss->values, op)) {
        ss->no_memory = 1;
        return 0;
      }
    }
  }
  return 0;
}

static int instruction_is_scalable(scalable_search *ss, LLVMValueRef inst) {
  if (type_is_scalable(ss, LLVMTypeOf(inst)))
    return 1;
  if (LLVMIsAAllocaInst(inst) && type_is_scalable(ss, LLVMGetAllocatedType(inst)))
    return 1;
  if (LLVMIsAGetElementPtrInst(inst) &&
      type_is_scalable(ss, LLVMGetGEPSourceElementType(inst)))
    return 1;
  if ((LLVMIsACallInst(inst) || LLVMIsAInvokeInst(inst)) &&
      type_is_scalable(ss, LLVMGetCalledFunctionType(inst)))
    return 1;
  int n = LLVMGetNumOperands(inst);
  for (int i = 0; i < n; i++) {
    LLVMValueRef op = LLVMGetOperand(inst, (unsigned)i);
    if (op && !LLVMIsABasicBlock(op) &&
        value_is_scalable(ss, op))
      return 1;
  }
  return 0;
}

/* The first global or function holding a scalable vector (its type, an
 * initializer, a parameter or an instruction), or NULL. */
static LLVMValueRef find_scalable(scalable_search *ss, LLVMModuleRef m) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    if (type_is_scalable(ss, LLVMGlobalGetValueType(g)))
      return g;
    LLVMValueRef init = LLVMIsDeclaration(g) ? NULL : LLVMGetInitializer(g);
    if (init && value_is_scalable(ss, init))
      return g;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (type_is_scalable(ss, LLVMGlobalGetValueType(f)))
      return f;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
        if (instruction_is_scalable(ss, i))
          return f;
  }
  return NULL;
}

static int check_scalable_vectors(LLVMModuleRef m, const char *module,
                                  tanjit_error **err) {
  scalable_search ss;
  memset(&ss, 0, sizeof ss);
  LLVMValueRef where = find_scalable(&ss, m);
  int no_memory = ss.no_memory;
  free(ss.seen_types.slots);
  free(ss.seen_values.slots);
  free(ss.types.items);
  free(ss.values.items);
  if (where)
    return tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                   "%s: %s %s uses %s (%s)", module,
                   LLVMIsAFunction(where) ? "function" : "global",
                   function_name(where), ss.lacked, host.arch);
  if (no_memory)
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory checking %s", module);
  return 0;
}

/* ---- Module level -------------------------------------------------------- */

static int check_triple_and_layout(LLVMModuleRef m, const char *module,
                                   tanjit_error **err) {
  const char *triple = LLVMGetTarget(m);
  if (*triple) {
    char *normalized = LLVMNormalizeTargetTriple(triple);
    char arch[32], os[32];
    triple_parts(normalized, arch, sizeof arch, os, sizeof os);
    LLVMDisposeMessage(normalized);
    int same_arch = strcmp(arch, host.arch) == 0;
    int same_os = strcmp(os, host.os) == 0 || strcmp(os, "unknown") == 0 || !*os;
    if (!same_arch || !same_os)
      return tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                     "%s: target triple \"%s\" is not this host's (%s): code "
                     "for %s%s%s cannot run here",
                     module, triple, host.triple, arch, *os ? "-" : "", os);
  }
  /* One triple for every module, the JIT's, so views and codegen agree. */
  LLVMSetTarget(m, host.triple);
  const char *layout = LLVMGetDataLayoutStr(m);
  if (!*layout)
    LLVMSetDataLayout(m, host.datalayout);
  else if (strcmp(layout, host.datalayout) != 0)
    return tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                   "%s: data layout \"%s\" is not this host's \"%s\"", module,
                   layout, host.datalayout);
  return 0;
}

static int check_unsupported_globals(LLVMModuleRef m, const char *module,
                                     tanjit_error **err) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMIsThreadLocal(g))
      return tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                     "%s: thread-local variables are not supported: %s", module,
                     function_name(g));
  LLVMValueRef ifunc = LLVMGetFirstGlobalIFunc(m);
  if (ifunc)
    return tj_fail(err, TANJIT_ERR_UNSUPPORTED, "%s: ifuncs are not supported: %s",
                   module, function_name(ifunc));
  return 0;
}

int jit_validate_module(tanjit_session *s, LLVMModuleRef m, const char *name,
                        tanjit_error **err) {
  pthread_once(&host_once, learn_host);
  if (!host.ok)
    return tj_fail(err, TANJIT_ERR_INTERNAL,
                   "cannot describe this host to LLVM (no native target?)");
  if (check_triple_and_layout(m, name, err) ||
      check_unsupported_globals(m, name, err))
    return -1;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) ? check_intrinsic(f, name, err)
                             : check_cpu(s, f, "target-cpu", name, err) ||
                                   check_cpu(s, f, "tune-cpu", name, err) ||
                                   check_features(s, f, name, err))
      return -1;
  }
  return check_scalable_vectors(m, name, err);
}
