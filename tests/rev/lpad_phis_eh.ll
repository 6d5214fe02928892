; Landing pads with PHIs (tests/rev/lpad_phis_eh.cpp drives it): four
; invokes unwind to one landing pad block whose PHIs merge what each edge
; carries (an integer tag, a pointer into the active array x), and the
; normal destinations of two invokes meet in a float PHI.  clang splits a
; landing pad per invoke, so this shape (other frontends', hand-written
; IR's) is written out here.
;
;   a = checked_sq(x[0]); m = a * x[1]; b = checked_sq(m)
;   w = b > 1 ? checked_sq(b * x[0]) : checked_sin(x[1])
;   return b + w * x[2]
;   on unwind: note_unwind(tag of the invoke, (int)*where), resume
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @__gxx_personality_v0(...)
declare double @checked_sq(double)
declare double @checked_sin(double)
declare void @note_unwind(i32, i32)

define double @lpad_phis(ptr %x) personality ptr @__gxx_personality_v0 {
entry:
  %x0 = load double, ptr %x
  %a = invoke double @checked_sq(double %x0)
          to label %second unwind label %lpad

second:
  %p1 = getelementptr inbounds double, ptr %x, i64 1
  %x1 = load double, ptr %p1
  %m = fmul double %a, %x1
  %b = invoke double @checked_sq(double %m)
          to label %choose unwind label %lpad

choose:
  %big = fcmp ogt double %b, 1.0
  br i1 %big, label %square, label %sine

square:
  %bx = fmul double %b, %x0
  %u = invoke double @checked_sq(double %bx)
          to label %join unwind label %lpad

sine:
  %v = invoke double @checked_sin(double %x1)
          to label %join unwind label %lpad

join:
  %w = phi double [ %u, %square ], [ %v, %sine ]
  %p2 = getelementptr inbounds double, ptr %x, i64 2
  %x2 = load double, ptr %p2
  %wx = fmul double %w, %x2
  %r = fadd double %b, %wx
  ret double %r

lpad:
  %tag = phi i32 [ 1, %entry ], [ 2, %second ], [ 3, %square ], [ 4, %sine ]
  %where = phi ptr [ %x, %entry ], [ %p1, %second ], [ %x, %square ], [ %p1, %sine ]
  %lp = landingpad { ptr, i32 }
          cleanup
  %seen = load double, ptr %where
  %seen.i = fptosi double %seen to i32
  call void @note_unwind(i32 %tag, i32 %seen.i)
  resume { ptr, i32 } %lp
}
