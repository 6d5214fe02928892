/*
 * Views of the loaded modules: their pristine copies (bitcode as loaded,
 * before any transform) turned into code that refers to the compiled
 * originals: functions available_externally, globals external declarations.
 * The engine can differentiate through a view's bodies while calls and
 * state stay those of the modules already compiled.
 *
 *   jit_gather_views            every loaded module's view, linked into one
 *                               module (tanjit_fwddiff's starting point)
 *   jit_link_views_for_requests a module with requests that calls into
 *                               other loaded modules gets their bodies too
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/Linker.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

/* Turns a pristine copy into a view of the already-compiled module. */
static void make_external_view(LLVMModuleRef m) {
  /* An alias cannot be available_externally: each exported one hands its
   * uses to a declaration of its name (resolved to the compiled original)
   * and is left private, aliasing a private placeholder, since LLVM-C
   * cannot erase an alias; nothing uses either, and GlobalDCE drops them. */
  for (LLVMValueRef a = LLVMGetFirstGlobalAlias(m); a;) {
    LLVMValueRef next = LLVMGetNextGlobalAlias(a);
    LLVMLinkage l = LLVMGetLinkage(a);
    if (l != LLVMInternalLinkage && l != LLVMPrivateLinkage) {
      size_t len;
      const char *name = LLVMGetValueName2(a, &len);
      char *saved = tj_strndup(name, len);
      LLVMTypeRef type = LLVMGlobalGetValueType(a);
      int is_function = LLVMGetTypeKind(type) == LLVMFunctionTypeKind;
      LLVMSetValueName2(a, "", 0);
      LLVMSetLinkage(a, LLVMPrivateLinkage);
      /* Uses go to the aliasee itself when it is a plain global of this
       * module (so calls through the alias are differentiated like calls
       * to it), else to a declaration of the alias's name. */
      LLVMValueRef target = LLVMAliasGetAliasee(a);
      if (!LLVMIsAFunction(target) && !LLVMIsAGlobalVariable(target))
        target = is_function ? LLVMAddFunction(m, saved ? saved : "", type)
                             : LLVMAddGlobal(m, type, saved ? saved : "");
      LLVMReplaceAllUsesWith(a, target);
      LLVMValueRef placeholder;
      if (is_function) {
        placeholder = LLVMAddFunction(m, "tanjit.alias_placeholder", type);
        LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
        LLVMPositionBuilderAtEnd(
            b, LLVMAppendBasicBlockInContext(LLVMGetModuleContext(m), placeholder, ""));
        LLVMBuildUnreachable(b);
        LLVMDisposeBuilder(b);
      } else {
        placeholder = LLVMAddGlobal(m, type, "tanjit.alias_placeholder");
        LLVMSetInitializer(placeholder, LLVMConstNull(type));
      }
      LLVMSetLinkage(placeholder, LLVMPrivateLinkage);
      LLVMAliasSetAliasee(a, placeholder);
      free(saved);
    }
    a = next;
  }
  /* An ifunc cannot be available_externally either: its uses go to a
   * declaration of its name (the compiled original) and it is erased. */
  for (LLVMValueRef i = LLVMGetFirstGlobalIFunc(m); i;) {
    LLVMValueRef next = LLVMGetNextGlobalIFunc(i);
    size_t len;
    const char *name = LLVMGetValueName2(i, &len);
    char *saved = tj_strndup(name, len);
    LLVMTypeRef type = LLVMGlobalGetValueType(i);
    if (saved) {
      LLVMSetValueName2(i, "", 0);
      LLVMValueRef decl = LLVMAddFunction(m, saved, type);
      LLVMReplaceAllUsesWith(i, decl);
      LLVMEraseGlobalIFunc(i);
      free(saved);
    }
    i = next;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    LLVMLinkage l = LLVMGetLinkage(f);
    if (LLVMIsDeclaration(f) || l == LLVMInternalLinkage || l == LLVMPrivateLinkage)
      continue;
    LLVMSetLinkage(f, LLVMAvailableExternallyLinkage);
    LLVMSetComdat(f, NULL);
    LLVMSetVisibility(f, LLVMDefaultVisibility);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    LLVMLinkage l = LLVMGetLinkage(g);
    if (LLVMIsDeclaration(g) || l == LLVMInternalLinkage || l == LLVMPrivateLinkage)
      continue;
    LLVMSetInitializer(g, NULL);
    LLVMSetLinkage(g, LLVMExternalLinkage);
    LLVMSetComdat(g, NULL);
  }
}

/* Whether linking b into a would fail on their module flags: a key in
 * both under different behaviors, or with different values where it says
 * Error or Override.  Such a module is left out of the views (ORC itself links
 * modules apart, so it compiled before). */
static int flags_conflict(LLVMModuleRef a, LLVMModuleRef b) {
  size_t na = 0, nb = 0;
  LLVMModuleFlagEntry *fa = LLVMCopyModuleFlagsMetadata(a, &na);
  LLVMModuleFlagEntry *fb = LLVMCopyModuleFlagsMetadata(b, &nb);
  int conflict = 0;
  for (size_t i = 0; i < na && !conflict; i++) {
    size_t la, lb;
    const char *ka = LLVMModuleFlagEntriesGetKey(fa, (unsigned)i, &la);
    for (size_t j = 0; j < nb && !conflict; j++) {
      const char *kb = LLVMModuleFlagEntriesGetKey(fb, (unsigned)j, &lb);
      if (la != lb || memcmp(ka, kb, la) != 0)
        continue;
      LLVMModuleFlagBehavior ba =
          LLVMModuleFlagEntriesGetFlagBehavior(fa, (unsigned)i);
      LLVMModuleFlagBehavior bb =
          LLVMModuleFlagEntriesGetFlagBehavior(fb, (unsigned)j);
      /* the linker also refuses one key under two behaviors */
      if (ba != bb) {
        conflict = 1;
        continue;
      }
      if (LLVMModuleFlagEntriesGetMetadata(fa, (unsigned)i) ==
          LLVMModuleFlagEntriesGetMetadata(fb, (unsigned)j))
        continue;
      conflict = ba == LLVMModuleFlagBehaviorError ||
                 ba == LLVMModuleFlagBehaviorOverride;
    }
  }
  if (fa)
    LLVMDisposeModuleFlagsMetadata(fa);
  if (fb)
    LLVMDisposeModuleFlagsMetadata(fb);
  return conflict;
}

LLVMModuleRef jit_gather_views(tanjit_session *s, LLVMContextRef ctx,
                              LLVMModuleRef exclude, strmap *taken,
                              tanjit_error **err) {
  LLVMModuleRef dest = LLVMModuleCreateWithNameInContext("tanjit.fwddiff", ctx);
  /* pristine copies not made yet are made now (under jit_lock, as here) */
  jit_session_lock(s);
  size_t n_ids = s->n_modules;
  unsigned long *ids = tj_calloc(n_ids ? n_ids : 1, sizeof *ids);
  for (size_t i = 0; ids && i < n_ids; i++)
    if (!s->modules[i].pristine && !s->modules[i].generated)
      ids[i] = s->modules[i].id;
  jit_session_unlock(s);
  int made = ids != NULL;
  for (size_t i = 0; made && i < n_ids; i++)
    if (ids[i] && !jit_module_pristine(s, ids[i]))
      made = 0;
  free(ids);
  if (!made) {
    LLVMDisposeModule(dest);
    tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory copying the loaded modules");
    return NULL;
  }
  unsigned long excluded = exclude ? jit_module_id_of(exclude) : 0;
  jit_session_lock(s);
  size_t n = s->n_modules;
  LLVMMemoryBufferRef *copies = tj_calloc(n ? n : 1, sizeof *copies);
  for (size_t i = 0; copies && i < n; i++)
    if (!s->modules[i].generated && s->modules[i].pristine &&
        !(excluded && s->modules[i].id == excluded))
      copies[i] = LLVMCreateMemoryBufferWithMemoryRangeCopy(
        LLVMGetBufferStart(s->modules[i].pristine),
        LLVMGetBufferSize(s->modules[i].pristine), s->modules[i].name);
  jit_session_unlock(s);
  if (!copies) {
    LLVMDisposeModule(dest);
    tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory gathering modules");
    return NULL;
  }
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    LLVMModuleRef m = NULL;
    if (!copies[i])
      continue;
    if (!failed && LLVMParseBitcodeInContext2(ctx, copies[i], &m) == 0) {
      if ((exclude && flags_conflict(exclude, m)) || flags_conflict(dest, m)) {
        LLVMDisposeModule(m);
        LLVMDisposeMemoryBuffer(copies[i]);
        continue;
      }
      if (!*LLVMGetDataLayoutStr(dest)) {
        LLVMSetDataLayout(dest, LLVMGetDataLayoutStr(m));
        LLVMSetTarget(dest, LLVMGetTarget(m));
      }
      if (LLVMLinkModules2(dest, m)) /* destroys m */
        failed = tj_fail(err, TANJIT_ERR_INTERNAL,
                         "cannot link the loaded modules for a derivative");
    } else if (!failed) {
      failed = tj_fail(err, TANJIT_ERR_INTERNAL,
                       "cannot re-read a loaded module's IR");
    }
    LLVMDisposeMemoryBuffer(copies[i]);
  }
  free(copies);
  if (failed) {
    LLVMDisposeModule(dest);
    return NULL;
  }
  /* Functions whose address the modules take (in code, vtables, tables):
   * the possible targets of an indirect call, found before the views drop
   * the globals' initializers. */
  for (LLVMValueRef f = LLVMGetFirstFunction(dest); taken && f && !failed;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (len && !LLVMIsDeclaration(f) && ad_function_address_taken(f) &&
        LLVMGetLinkage(f) != LLVMInternalLinkage &&
        LLVMGetLinkage(f) != LLVMPrivateLinkage &&
        strmap_put(taken, name, (void *)1))
      failed = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
  }
  if (failed) {
    LLVMDisposeModule(dest);
    return NULL;
  }
  /* After linking: the linker would drop available_externally bodies that
   * nothing references yet. */
  make_external_view(dest);
  return dest;
}

/* Whether m declares a function that another loaded module defines.  A
 * tanjit_fwddiff module is made of the views already (and has dropped the
 * bodies it must not see): never. */
static int calls_into_other_modules(tanjit_session *s, LLVMModuleRef m) {
  int found = 0;
  unsigned long id = jit_module_id_of(m);
  jit_session_lock(s);
  jit_module *rec = jit_module_by_id(s, id);
  if (rec && rec->generated)
    found = -1;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !found;
       f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f))
      continue;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    for (size_t i = 0; i < s->n_modules && !found; i++) {
      const jit_module *rec = &s->modules[i];
      if (rec->generated || rec->id == id)
        continue;
      for (size_t k = 0; k < rec->n_defined && !found; k++)
        found = strlen(rec->defined[k]) == len &&
                memcmp(rec->defined[k], name, len) == 0;
    }
  }
  jit_session_unlock(s);
  return found > 0;
}

/* Whether m calls through a function pointer (a virtual call, a callback). */
static int has_indirect_call(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i))
          continue;
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if (!LLVMIsAFunction(callee) && !LLVMIsAInlineAsm(callee) &&
            !LLVMIsAConstantExpr(callee))
          return 1;
      }
  return 0;
}

/* Whether other modules are loaded that views could come from. */
static int other_modules(tanjit_session *s, LLVMModuleRef m) {
  int any = 0;
  unsigned long id = jit_module_id_of(m);
  jit_session_lock(s);
  for (size_t i = 0; i < s->n_modules && !any; i++)
    any = !s->modules[i].generated && s->modules[i].id != id;
  jit_session_unlock(s);
  return any;
}

static const char anchor_name[] = "tanjit.view_indirect_targets";

int jit_views_needed(tanjit_session *s, LLVMModuleRef m) {
  return (has_indirect_call(m) && other_modules(s, m)) ||
         calls_into_other_modules(s, m);
}

int jit_link_views_for_requests(tanjit_session *s, LLVMModuleRef m,
                                strmap *own, tanjit_error **err) {
  /* (the same question as jit_views_needed: the object cache keys on it) */
  int indirect = has_indirect_call(m) && other_modules(s, m);
  if (!indirect && !calls_into_other_modules(s, m))
    return 0;
  /* m's own definitions: a function m only declares gets its body from a
   * view, and loses it again after differentiation */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (len && !LLVMIsDeclaration(f) && strmap_put(own, name, (void *)1))
      return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
  }
  strmap taken;
  strmap_init(&taken);
  LLVMModuleRef views = jit_gather_views(s, LLVMGetModuleContext(m), m,
                                         indirect ? &taken : NULL, err);
  if (!views) {
    strmap_free(&taken);
    return -1;
  }
  /* The other modules' address-taken functions are the possible targets of
   * m's indirect calls (emit_indirect_call dispatches on them): referred to
   * from an anchor, so the linker brings their bodies and the engine sees
   * their addresses taken. */
  size_t n = 0;
  LLVMValueRef *targets = tj_malloc((taken.count ? taken.count : 1) * sizeof *targets);
  if (!targets) {
    strmap_free(&taken);
    LLVMDisposeModule(views);
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < taken.cap; i++) {
    if (!taken.keys[i])
      continue;
    LLVMValueRef vf = LLVMGetNamedFunction(views, taken.keys[i]);
    if (!vf || LLVMIsDeclaration(vf))
      continue;
    LLVMValueRef f = LLVMGetNamedFunction(m, taken.keys[i]);
    if (!f)
      f = LLVMAddFunction(m, taken.keys[i], LLVMGlobalGetValueType(vf));
    if (LLVMIsDeclaration(f))
      targets[n++] = f;
  }
  strmap_free(&taken);
  if (n) {
    LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(m), 0);
    LLVMTypeRef at = LLVMArrayType2(ptr, n);
    LLVMValueRef anchor = LLVMAddGlobal(m, at, anchor_name);
    LLVMSetInitializer(anchor, LLVMConstArray2(ptr, targets, n));
    LLVMSetLinkage(anchor, LLVMPrivateLinkage);
    LLVMSetGlobalConstant(anchor, 1);
  }
  free(targets);
  /* The linker takes a view's available_externally bodies only where m
   * refers to them, and what those refer to in turn. */
  if (LLVMLinkModules2(m, views)) /* destroys views */
    return tj_fail(err, TANJIT_ERR_INTERNAL,
                   "cannot link the other loaded modules' code for this "
                   "module's derivative requests");
  return 1;
}

void jit_drop_body(LLVMValueRef f) {
  /* Instructions refer to each other across blocks (PHIs, branches, loop
   * back edges): every use goes first, then the instructions, then the
   * empty blocks. */
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind &&
          LLVMGetFirstUse(i))
        LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
  /* Each block keeps one `unreachable`, added last, and loses the rest
   * front to back: an erased instruction's debug records (-g's variable
   * locations) move on to the next one, and end on the unreachable, which
   * takes them when its block goes.  Erased back to front, the
   * terminator's went to the block's trailing marker, which LLVM 19 never
   * frees once the block is deleted (ASan's leak report). */
  LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(f));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMPositionBuilderAtEnd(b, bb);
    LLVMValueRef last = LLVMBuildUnreachable(b), i;
    while ((i = LLVMGetFirstInstruction(bb)) != last)
      LLVMInstructionEraseFromParent(i);
  }
  LLVMDisposeBuilder(b);
  LLVMBasicBlockRef bb;
  while ((bb = LLVMGetFirstBasicBlock(f)))
    LLVMDeleteBasicBlock(bb);
  /* The verifier refuses a declaration with its definition's !dbg (a
   * distinct DISubprogram: any body compiled with -g or
   * -gline-tables-only) or a !prof.  The others stay: the engine reads
   * registrations from them (!enzyme_derivative, !enzyme_gradient). */
  static const char *const refused[] = {"dbg", "prof"};
  for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
    LLVMGlobalEraseMetadata(
        f, LLVMGetMDKindIDInContext(ctx, refused[k], (unsigned)strlen(refused[k])));
}

void jit_unlink_views(LLVMModuleRef m, const strmap *own) {
  LLVMValueRef anchor = LLVMGetNamedGlobal(m, anchor_name);
  if (anchor)
    LLVMDeleteGlobal(anchor);
  /* The views' bodies served differentiation; calls to them go to the
   * compiled originals, and no copy of their code is optimized, inlined
   * or compiled here (an inlined copy would also bring copies of their
   * constants, whose addresses differ from the originals'). */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (LLVMGetLinkage(f) != LLVMAvailableExternallyLinkage ||
        (len && strmap_get(own, name)))
      continue;
    jit_drop_body(f);
    LLVMSetLinkage(f, LLVMExternalLinkage);
  }
}
