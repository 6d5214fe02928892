#!/usr/bin/env python3
"""Writes an LLVM IR module of N functions, each with one __enzyme_fwddiff
request, and a main that calls every derivative and prints their sum:
the compile-latency benchmark's input (bench/compile/cold_warm.sh).

usage: gen_module.py N > module.ll
"""
import sys


def function(i):
    c = 1.0 + i / 7.0
    return f"""
define double @f{i}(double %x) {{
  %a = fmul double %x, %x
  %b = call double @llvm.sin.f64(double %a)
  %c = fmul double %b, {c!r}
  %d = call double @llvm.exp.f64(double %x)
  %e = fadd double %c, %d
  %g = fdiv double %e, {c + 2!r}
  ret double %g
}}

define double @df{i}(double %x) {{
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f{i}, double %x, double 1.0)
  ret double %r
}}
"""


def main():
    n = int(sys.argv[1])
    out = ["declare double @llvm.sin.f64(double)",
           "declare double @llvm.exp.f64(double)",
           "declare double @__enzyme_fwddiff(ptr, ...)",
           "declare i32 @printf(ptr, ...)",
           '@fmt = private unnamed_addr constant [7 x i8] c"%.17g\\0A\\00"']
    out += [function(i) for i in range(n)]
    body = ["define i32 @main(i32 %argc, ptr %argv) {", "  %s0 = fadd double 0.0, 0.0"]
    for i in range(n):
        body.append(f"  %t{i} = call double @df{i}(double 0.5)")
        body.append(f"  %s{i + 1} = fadd double %s{i}, %t{i}")
    body.append(f"  call i32 (ptr, ...) @printf(ptr @fmt, double %s{n})")
    body += ["  ret i32 0", "}"]
    out.append("\n".join(body))
    # `--entry first`: the time to the first call of one function
    out.append("define i32 @first(i32 %argc, ptr %argv) {\n"
               "  %t = call double @df0(double 0.5)\n"
               "  call i32 (ptr, ...) @printf(ptr @fmt, double %t)\n"
               "  ret i32 0\n}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
