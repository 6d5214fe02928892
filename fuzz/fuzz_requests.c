/*
 * Modules holding requests (__enzyme_fwddiff; __enzyme_autodiff and split
 * mode's __enzyme_augmentfwd / __enzyme_reverse): load, transform
 * (differentiate), optimize and compile, never run.  Inputs are IR text;
 * the custom mutator below changes them a token at a time in ways that
 * keep most of them parseable (an opcode for another of its class, a type
 * for another, a marker for another marker, a constant for an edge value,
 * a local operand for another local, a line duplicated or dropped), and a
 * request at a time: one request renamed to another mode everywhere it
 * occurs, a marker (enzyme_out, enzyme_dup, enzyme_width N, ...) put
 * between two of a request's arguments with its global declared, one
 * argument of a request dropped.  So the engine sees request modules it was
 * never written for rather than parse errors.  One mutation in eight is
 * libFuzzer's own byte-level one.
 *
 * Seeds: tests/programs (forward) and tests/rev, Enzyme's ReverseMode
 * (reverse, split) compiled to .ll by scripts/fuzz.sh.
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
    {"@enzyme_dup", "@enzyme_const", "@enzyme_dupnoneed", "@enzyme_width",
     "@enzyme_primal_return", "@enzyme_out", NULL},
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

/* Requests, renamed one for another everywhere they occur (declaration and
 * calls), so a forward program's request becomes a reverse one. */
static const char *const requests[] = {"@__enzyme_fwddiff", "@__enzyme_autodiff",
                                       "@__enzyme_augmentfwd", "@__enzyme_reverse"};
/* Markers put into a request's arguments: global name, the value after it
 * ("" for none: the next argument is the marked one). */
static const struct {
  const char *name, *value;
} markers[] = {
    {"enzyme_out", ""},           {"enzyme_dup", ""},
    {"enzyme_const", ""},         {"enzyme_dupnoneed", ""},
    {"enzyme_primal_return", ""}, {"enzyme_active_return", ""},
    {"enzyme_const_return", ""},  {"enzyme_dup_return", ""},
    {"enzyme_noret", ""},         {"enzyme_tape", ""},
    {"enzyme_allocated", "i64 16"}, {"enzyme_width", "i64 2"},
    {"enzyme_width", "i64 0"},    {"enzyme_width", "i64 4294967297"},
    {"enzyme_width", ""},         {"enzyme_runtime_activity", ""},
};

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

/* Whether t names a request and a call's argument list follows it. */
static int is_request_call(const uint8_t *data, size_t size, span t) {
  int named = 0;
  for (size_t r = 0; r < sizeof requests / sizeof *requests; r++)
    named |= token_is(data, t, requests[r]);
  return named && t.at + t.len < size && data[t.at + t.len] == '(' &&
         line_start(data, t.at) + 4 < t.at && /* not the declaration */
         memmem(data + line_start(data, t.at), t.at - line_start(data, t.at),
                "declare", 7) == NULL;
}

/* The positions after each top-level comma of the argument list opening at
 * `open`, and the position of its closing parenthesis last; the count. */
static size_t argument_commas(const uint8_t *data, size_t size, size_t open,
                              size_t *out, size_t cap) {
  size_t n = 0;
  int depth = 0;
  for (size_t i = open; i < size && data[i] != '\n' && n < cap; i++) {
    if (data[i] == '(' || data[i] == '{' || data[i] == '[' || data[i] == '<')
      depth++;
    else if (data[i] == ')' || data[i] == '}' || data[i] == ']' || data[i] == '>') {
      if (--depth == 0) {
        out[n++] = i;
        return n;
      }
    } else if (data[i] == ',' && depth == 1)
      out[n++] = i + 1;
  }
  return 0; /* no closing parenthesis on the line */
}

/* Replaces every whole-word occurrence of `from` by `to`. */
static size_t rename_all(uint8_t *data, size_t size, size_t max_size,
                         const char *from, const char *to) {
  size_t fl = strlen(from), tl = strlen(to);
  for (size_t i = 0; i + fl <= size; i++)
    if (memcmp(data + i, from, fl) == 0 &&
        (i + fl == size || !is_word(data[i + fl]))) {
      if (size - fl + tl > max_size)
        return size;
      size = replace(data, size, max_size, (span){i, fl}, to, tl);
      i += tl - 1;
    }
  return size;
}

/* Inserts marker m (and its value) at `at`, an argument's start (after
 * its comma) or the closing parenthesis, and declares the marker's global
 * when the text does not. */
static size_t insert_marker(uint8_t *data, size_t size, size_t max_size,
                            size_t at, size_t m) {
  char text[128], decl[96], defined[64];
  const char *name = markers[m].name, *value = markers[m].value;
  int n = data[at] == ')'
              ? snprintf(text, sizeof text, ", ptr @%s%s%s", name,
                         *value ? ", " : "", value)
              : snprintf(text, sizeof text, " ptr @%s,%s%s%s", name,
                         *value ? " " : "", value, *value ? "," : "");
  int d = snprintf(decl, sizeof decl, "\n@%s = external global i32\n", name);
  snprintf(defined, sizeof defined, "@%s = ", name);
  int declared = memmem(data, size, defined, strlen(defined)) != NULL;
  size_t grow = (size_t)n + (declared ? 0 : (size_t)d);
  if (n <= 0 || d <= 0 || size + grow > max_size)
    return size;
  memmove(data + at + n, data + at, size - at);
  memcpy(data + at, text, (size_t)n);
  size += (size_t)n;
  if (!declared) {
    memcpy(data + size, decl, (size_t)d);
    size += (size_t)d;
  }
  return size;
}

/* Drops argument i+1 of the call (the text from comma i to comma i+1). */
static size_t drop_argument(uint8_t *data, size_t size, const size_t *commas,
                            size_t k, size_t i) {
  size_t a = commas[i] - 1, b = commas[i + 1] - (i + 1 == k - 1 ? 0 : 1);
  memmove(data + a, data + b, size - b);
  return size - (b - a);
}

#define MAX_TOKENS 65536
static span tokens[MAX_TOKENS];

/* One request of the n tokens changed: renamed to another mode everywhere,
 * a marker put between two of a call's arguments, or an argument of a call
 * dropped.  Returns the new size (size when there is no request). */
static size_t mutate_request(uint8_t *data, size_t size, size_t max_size,
                             size_t n, unsigned *state) {
  size_t calls[256], k = 0, named = 0;
  span any = {0, 0};
  for (size_t i = 0; i < n; i++)
    for (size_t r = 0; r < sizeof requests / sizeof *requests; r++)
      if (token_is(data, tokens[i], requests[r])) {
        if (next_random(state) % ++named == 0)
          any = tokens[i];
        if (k < 256 && is_request_call(data, size, tokens[i]))
          calls[k++] = i;
      }
  if (named == 0)
    return size;
  if (next_random(state) % 4 == 0 || k == 0) {
    char from[32];
    snprintf(from, sizeof from, "%.*s", (int)any.len, (const char *)data + any.at);
    const char *to = requests[next_random(state) % (sizeof requests / sizeof *requests)];
    char declared[40]; /* a name the module declares already would clash */
    snprintf(declared, sizeof declared, "%s(", to);
    if (memmem(data, size, declared, strlen(declared)))
      return size;
    return rename_all(data, size, max_size, from, to);
  }
  span t = tokens[calls[next_random(state) % k]];
  size_t commas[64];
  size_t c = argument_commas(data, size, t.at + t.len, commas, 64);
  if (c == 0)
    return size;
  if (c < 2 || next_random(state) % 3)
    return insert_marker(data, size, max_size, commas[next_random(state) % c],
                         next_random(state) % (sizeof markers / sizeof *markers));
  return drop_argument(data, size, commas, c, next_random(state) % (c - 1));
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed) {
  unsigned state = seed | 1;
  size_t n = tokenize(data, size, tokens, MAX_TOKENS);
  if (n == 0 || next_random(&state) % 8 == 0)
    return LLVMFuzzerMutate(data, size, max_size);
  if (next_random(&state) % 4 == 0) {
    size_t grown = mutate_request(data, size, max_size, n, &state);
    if (grown != size || next_random(&state) % 2)
      return grown;
  }
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
