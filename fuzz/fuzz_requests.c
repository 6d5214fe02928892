/*
 * Modules holding __enzyme_fwddiff requests: load, transform (differentiate),
 * optimize and compile, never run.  Inputs are IR text; the custom mutator
 * below changes them a token at a time in ways that keep most of them
 * parseable (an opcode for another of its class, a type for another, a
 * marker for another marker, a constant for an edge value, a local operand
 * for another local, a line duplicated or dropped), so the engine sees
 * request modules it was never written for rather than parse errors.  One
 * mutation in eight is libFuzzer's own byte-level one.
 *
 * Seeds: tests/programs compiled to .ll by scripts/fuzz.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Tokens that may replace each other, one class per row. */
static const char *const classes[][12] = {
    {"fadd", "fsub", "fmul", "fdiv", "frem", NULL},
    {"add", "sub", "mul", "sdiv", "udiv", "srem", "shl", "lshr", "ashr", "and", "or", "xor"},
    {"double", "float", "half", "x86_fp80", "i64", "i32", "ptr", NULL},
    {"enzyme_dup", "enzyme_const", "enzyme_dupnoneed", "enzyme_width",
     "enzyme_primal_return", "enzyme_out", NULL},
    {"oeq", "one", "olt", "ogt", "ole", "oge", "ord", "uno", "ueq", "une", NULL},
    {"eq", "ne", "slt", "sgt", "sle", "sge", "ult", "ugt", NULL},
    {"fptosi", "fptoui", "sitofp", "uitofp", "fpext", "fptrunc", "bitcast", NULL},
    {"@llvm.sin.f64", "@llvm.cos.f64", "@llvm.exp.f64", "@llvm.log.f64",
     "@llvm.sqrt.f64", "@llvm.fabs.f64", "@sin", "@cos", "@exp", "@log", "@tanh", NULL},
    {"load", "store", NULL},
    {"internal", "private", "linkonce_odr", "weak", "external", NULL},
    {"noinline", "alwaysinline", "readnone", "nounwind", "optnone", NULL},
};
static const char *const numbers[] = {"0", "1", "-1", "2", "3", "7", "8", "16",
                                      "255", "256", "4294967295", "-2147483648",
                                      "9223372036854775807", "1.0", "0.0", "-0.0",
                                      "1.000000e+308", "0x7FF8000000000000",
                                      "0x7FF0000000000000"};

static unsigned next_random(unsigned *state) {
  *state ^= *state << 13;
  *state ^= *state >> 17;
  *state ^= *state << 5;
  return *state;
}

static int is_word(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '@' || c == '%' || c == '-' || c == '$';
}

typedef struct span {
  size_t at, len;
} span;

/* The word tokens of data, at most `cap`. */
static size_t tokenize(const uint8_t *data, size_t size, span *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < size && n < cap;) {
    if (data[i] == ';') { /* comment to end of line */
      while (i < size && data[i] != '\n')
        i++;
      continue;
    }
    if (data[i] == '"') { /* strings are left alone */
      i++;
      while (i < size && data[i] != '"' && data[i] != '\n')
        i++;
      i++;
      continue;
    }
    if (!is_word(data[i])) {
      i++;
      continue;
    }
    size_t start = i;
    while (i < size && is_word(data[i]))
      i++;
    out[n++] = (span){start, i - start};
  }
  return n;
}

static int token_is(const uint8_t *data, span t, const char *word) {
  return strlen(word) == t.len && memcmp(data + t.at, word, t.len) == 0;
}

/* Replaces token t by `with`, if it fits. */
static size_t replace(uint8_t *data, size_t size, size_t max_size, span t,
                      const char *with, size_t with_len) {
  if (size - t.len + with_len > max_size)
    return size;
  memmove(data + t.at + with_len, data + t.at + t.len, size - t.at - t.len);
  memcpy(data + t.at, with, with_len);
  return size - t.len + with_len;
}

static size_t line_start(const uint8_t *data, size_t at) {
  while (at > 0 && data[at - 1] != '\n')
    at--;
  return at;
}

static size_t line_end(const uint8_t *data, size_t size, size_t at) {
  while (at < size && data[at] != '\n')
    at++;
  return at < size ? at + 1 : at;
}

#define MAX_TOKENS 65536
static span tokens[MAX_TOKENS];

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed) {
  unsigned state = seed | 1;
  size_t n = tokenize(data, size, tokens, MAX_TOKENS);
  if (n == 0 || next_random(&state) % 8 == 0)
    return LLVMFuzzerMutate(data, size, max_size);
  for (int attempt = 0; attempt < 16; attempt++) {
    span t = tokens[next_random(&state) % n];
    switch (next_random(&state) % 5) {
    case 0: /* a token for another of its class */
      for (size_t c = 0; c < sizeof classes / sizeof *classes; c++) {
        size_t k = 0;
        while (k < 12 && classes[c][k])
          k++;
        for (size_t j = 0; j < k; j++)
          if (token_is(data, t, classes[c][j])) {
            const char *with = classes[c][next_random(&state) % k];
            return replace(data, size, max_size, t, with, strlen(with));
          }
      }
      break;
    case 1: /* a number for an edge value */
      if ((data[t.at] >= '0' && data[t.at] <= '9') ||
          (data[t.at] == '-' && t.len > 1)) {
        const char *with = numbers[next_random(&state) % (sizeof numbers / sizeof *numbers)];
        return replace(data, size, max_size, t, with, strlen(with));
      }
      break;
    case 2: /* a local operand for another local of the function */
      if (data[t.at] == '%' && t.len > 1) {
        for (int tries = 0; tries < 32; tries++) {
          size_t j = next_random(&state) % n;
          span u = tokens[j];
          if (data[u.at] == '%' && u.len > 1 && u.at != t.at &&
              (u.at > t.at ? u.at - t.at : t.at - u.at) < 4096) {
            char with[256];
            if (u.len >= sizeof with)
              break;
            memcpy(with, data + u.at, u.len);
            return replace(data, size, max_size, t, with, u.len);
          }
        }
      }
      break;
    case 3: { /* duplicate the token's line */
      size_t a = line_start(data, t.at), b = line_end(data, size, t.at);
      if (size + (b - a) <= max_size && b > a) {
        memmove(data + b + (b - a), data + b, size - b);
        memcpy(data + b, data + a, b - a);
        return size + (b - a);
      }
      break;
    }
    case 4: { /* drop the token's line */
      size_t a = line_start(data, t.at), b = line_end(data, size, t.at);
      memmove(data + a, data + b, size - b);
      return size - (b - a);
    }
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

/* Up to `cap` names of functions the text defines, for lookups that make
 * the JIT compile the module (its whole module at once). */
static size_t defined_names(const uint8_t *text, size_t size, char names[][128],
                            size_t cap) {
  size_t n = 0;
  const char *p = (const char *)text, *end = p + size;
  while (n < cap && (p = memmem(p, (size_t)(end - p), "define ", 7))) {
    const char *at = memchr(p, '@', (size_t)(end - p));
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!at || (nl && at > nl)) {
      p += 7;
      continue;
    }
    size_t len = 0;
    at++;
    while (at + len < end && len < 127 && is_word(at[len]) && at[len] != '%')
      len++;
    if (len) {
      memcpy(names[n], at, len);
      names[n++][len] = '\0';
    }
    p = at;
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 2 && ((data[0] == 'B' && data[1] == 'C') ||
                    (data[0] == 0xDE && data[1] == 0xC0)))
    return 0; /* bitcode is fuzz_bitcode's */
  char names[4][128];
  const char *symbols[5] = {NULL};
  size_t n = defined_names(data, size, names, 4);
  for (size_t i = 0; i < n; i++)
    symbols[i] = names[i];
  tanjit_session *s = fuzz_session(1);
  fuzz_load_and_compile(s, data, size, symbols);
  tanjit_session_free(s);
  return 0;
}
