; Pointers read or exchanged through a pointer whose shadow is the pointer
; itself (a constant table of pointers kept behind a duplicated holder, as
; a Julia tuple of Const arrays): the pointers read must stand for
; themselves, as a plain load's do, not become null.
;   f(holder, x) = 3 x * (masked.load(*holder)[1])[0]    = 3 * 3.5 x
;   g(holder, x) = 2 x * *(atomicrmw xchg (*holder)[0], @c1)   old: @c0 = 1.5
; main returns the number of mismatches.
declare <2 x ptr> @llvm.masked.load.v2p0.p0(ptr, i32, <2 x i1>, <2 x ptr>)
declare double @__enzyme_fwddiff(ptr, ...)
declare i32 @printf(ptr, ...)
@fmt = private constant [30 x i8] c"MISMATCH %d: got %g, want %g\0A\00"
@enzyme_dup = external global i32

@c0 = global double 1.5
@c1 = global double 3.5
@table = global [2 x ptr] [ptr @c0, ptr @c1]
@slots = global [2 x ptr] [ptr @c0, ptr @c1]

define internal double @f(ptr %holder, double %x) {
  %tbl = load ptr, ptr %holder, align 8
  %v = call <2 x ptr> @llvm.masked.load.v2p0.p0(ptr %tbl, i32 8, <2 x i1> <i1 true, i1 true>, <2 x ptr> poison)
  %e = extractelement <2 x ptr> %v, i64 1
  %c = load double, ptr %e, align 8
  %r = fmul double %c, %x
  %r3 = fmul double %r, 3.0
  ret double %r3
}

define internal double @g(ptr %holder, double %x) {
  %tbl = load ptr, ptr %holder, align 8
  %old = atomicrmw xchg ptr %tbl, ptr @c1 seq_cst, align 8
  %c = load double, ptr %old, align 8
  %r = fmul double %c, %x
  %r2 = fmul double %r, 2.0
  ret double %r2
}

define internal i32 @check(i32 %j, double %got, double %want) {
  %ok = fcmp oeq double %got, %want
  br i1 %ok, label %good, label %bad
good:
  ret i32 0
bad:
  %p = call i32 (ptr, ...) @printf(ptr @fmt, i32 %j, double %got, double %want)
  ret i32 1
}

define i32 @main() {
  %holder = alloca ptr, align 8
  %dholder = alloca ptr, align 8
  store ptr @table, ptr %holder
  store ptr @table, ptr %dholder
  %d0 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr @enzyme_dup, ptr %holder, ptr %dholder, double 2.0, double 1.0)
  %m0 = call i32 @check(i32 0, double %d0, double 10.5)
  store ptr @slots, ptr %holder
  store ptr @slots, ptr %dholder
  %d1 = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_dup, ptr %holder, ptr %dholder, double 2.0, double 1.0)
  %m1 = call i32 @check(i32 1, double %d1, double 3.0)
  %now = load ptr, ptr @slots
  %same = icmp eq ptr %now, @c1
  %m2 = select i1 %same, i32 0, i32 1
  %s1 = add i32 %m0, %m1
  %s2 = add i32 %s1, %m2
  ret i32 %s2
}
